/**
 * The generic structured call (GeminiLlm.generateJson) through the real SDK against the fake:
 * model, limits and schema per purpose, the one-more-try rule, usage under its purpose.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { GeminiClient } from "../../src/llm/gemini-client";
import type { LlmUsage } from "../../src/llm/types";
import { geminiJsonSchema } from "../../src/llm/json-schema";
import { GeminiLlm } from "../../src/llm/llm";
import { PURPOSES } from "../../src/config/llm-purposes";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";

const Verdict = z.object({ addressed: z.boolean(), confidence: z.number().min(0).max(1).describe("0..1") });

let fake: GeminiFake;
let log: ReturnType<typeof captureLogger>;
let llm: GeminiLlm;
let usage: LlmUsage[];

beforeEach(async () => {
  fake = await GeminiFake.start();
  log = captureLogger();
  usage = [];
  const client = new GeminiClient({
    apiKey: "k",
    model: "gemini-2.5-flash",
    baseUrl: fake.baseUrl,
    logger: log.logger,
    maxAttempts: 1,
  });
  llm = new GeminiLlm({
    client,
    logger: log.logger,
    model: "gemini-2.5-flash",
    models: { address: "gemini-2.5-flash-lite" },
  });
  llm.onUsage((u) => usage.push(u));
});
afterEach(async () => {
  await fake.close();
});

const ask = () =>
  llm.generateJson({
    purpose: "address",
    schema: Verdict,
    systemInstruction: "Decide.",
    contents: [{ role: "user", parts: [{ text: "hi" }] }],
    chatId: "-1",
  });

describe("GeminiLlm.generateJson", () => {
  it("uses the purpose's model, limits and the zod schema as responseJsonSchema, and returns the checked value", async () => {
    fake.script({ json: { addressed: true, confidence: 0.9 } });
    const res = await ask();
    expect(res).toEqual({
      ok: true,
      value: { addressed: true, confidence: 0.9 },
      model: "gemini-2.5-flash-lite",
      calls: 1,
    });
    const req = fake.requests[0]!;
    expect(req.model).toBe("gemini-2.5-flash-lite");
    expect(req.body.generationConfig).toMatchObject({
      responseMimeType: "application/json",
      responseJsonSchema: geminiJsonSchema(Verdict),
      maxOutputTokens: PURPOSES.address.maxOutputTokens,
      thinkingConfig: { thinkingBudget: 0 },
      temperature: PURPOSES.address.temperature,
    });
    expect(geminiJsonSchema(Verdict)).toEqual({
      type: "object",
      properties: {
        addressed: { type: "boolean" },
        confidence: { type: "number", minimum: 0, maximum: 1, description: "0..1" },
      },
      required: ["addressed", "confidence"],
    });
    // Its tokens are counted under its purpose.
    expect(usage).toEqual([
      expect.objectContaining({
        purpose: "address",
        model: "gemini-2.5-flash-lite",
        promptTokens: expect.any(Number),
        outputTokens: expect.any(Number),
      }),
    ]);
  });

  it("an off-schema answer earns one more call", async () => {
    fake.script({ json: { addressed: "yes" } }, { json: { addressed: false, confidence: 0.1 } });
    const res = await ask();
    expect(res).toMatchObject({ ok: true, value: { addressed: false }, calls: 2 });
    expect(usage).toHaveLength(2);
  });

  it("two refusals: {ok: false} with the reason, and exactly one log line", async () => {
    fake.script({ safety: true }, { safety: true });
    const res = await ask();
    expect(res).toEqual({ ok: false, kind: "blocked", reason: "answer blocked: SAFETY", calls: 2 });
    const loud = log.lines().filter((l) => Number(l.level) >= 40);
    expect(loud).toEqual([
      expect.objectContaining({ purpose: "address", chatId: "-1", reason: "answer blocked: SAFETY" }),
    ]);
    expect(usage.map((u) => u.purpose)).toEqual(["address", "address"]); // blocked calls are billed too
  });

  it("HTTP failures are not refusals: they are thrown after the client's retries", async () => {
    fake.script({ status: 503 });
    await expect(ask()).rejects.toMatchObject({ status: 503 });
  });
});
