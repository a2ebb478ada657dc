import { afterEach, describe, expect, it } from "vitest";
import { OpenAiEmbedder } from "../../src/llm/openai-embedder";
import type { LlmUsage } from "../../src/llm/types";
import { captureLogger } from "../support/log-capture";
import { OpenAiFake } from "../support/openai-fake";

let fake: OpenAiFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe("embedding calls are counted", () => {
  it("a server that ignores `dimensions` fails the call, but the tokens it billed are counted", async () => {
    fake = await OpenAiFake.start();
    fake.ignoresDimensions = true;
    const embedder = new OpenAiEmbedder({
      baseUrl: fake.baseUrl,
      apiKey: "local",
      model: "nomic-embed-text",
      dimensions: 256,
      logger: captureLogger().logger,
    });
    const usage: LlmUsage[] = [];
    embedder.onUsage((u) => usage.push(u));
    await expect(embedder.embed({ texts: ["carol can't eat peanuts"], task: "document" })).rejects.toThrow(
      "has 384 dimensions, expected 256",
    );
    expect(usage).toEqual([
      expect.objectContaining({ purpose: "embed", model: "nomic-embed-text", promptTokens: 6 }),
    ]);
  });

  it("a model of one size learns its size from each answer (one replaced under its name is noticed)", async () => {
    fake = await OpenAiFake.start();
    const embedder = new OpenAiEmbedder({
      baseUrl: fake.baseUrl,
      apiKey: "local",
      model: "nomic-embed-text",
      logger: captureLogger().logger,
    });
    expect(embedder.dimensions).toBeUndefined();
    await embedder.embed({ texts: ["a"], task: "document" });
    expect(embedder.dimensions).toBe(384);
    fake.embeddingSize = 768;
    const [v] = await embedder.embed({ texts: ["a"], task: "document" });
    expect([v!.length, embedder.dimensions, embedder.key]).toEqual([768, 768, "openai:nomic-embed-text"]);
  });
});
