/** Which provider answers what: routes per purpose, what falls back, what is off — said at start. */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { readEnv } from "../../src/config/env";
import { createLlm, planRoutes, withLocalPrices } from "../../src/llm/providers";
import { DEFAULT_PRICES, estimateCost } from "../../src/llm/prices";
import { GeminiFake } from "../support/gemini-fake";
import { OpenAiFake } from "../support/openai-fake";
import { captureLogger } from "../support/log-capture";

const base = readEnv({});
let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers) await c();
  closers = [];
});

describe("routes", () => {
  it("with only OPENAI_BASE_URL everything runs there; audio is off and said so, search tools too", () => {
    const plan = planRoutes({
      ...base,
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      OPENAI_MODEL: "llama3.2",
    });
    expect(plan.routes.plan).toMatchObject({ provider: "openai", model: "llama3.2" });
    expect(plan.routes.address).toMatchObject({ provider: "openai", model: "llama3.2" });
    expect(plan.routes.transcribe).toBe("off");
    expect(plan.notices).toEqual([
      expect.stringMatching(
        /^voice notes are not transcribed: llama3\.2 .* takes no audio here and GEMINI_API_KEY is not set/,
      ),
      expect.stringMatching(
        /^media: photos and stickers are described by llama3\.2; videos, GIFs and video notes are not described/,
      ),
      expect.stringMatching(/web search and page reading are Gemini's tools/),
    ]);
  });

  it("addressing on a small local model, planning on Gemini; voice notes fall back to Gemini", () => {
    const plan = planRoutes({
      ...base,
      GEMINI_API_KEY: "k",
      OPENAI_BASE_URL: "http://127.0.0.1:11434/v1",
      LLM_ADDRESS: "openai:qwen3:1.7b",
      LLM_MEDIA: "openai:llava",
    });
    expect(plan.routes.plan).toMatchObject({ provider: "gemini", model: "gemini-2.5-flash" });
    expect(plan.routes.address).toMatchObject({
      provider: "openai",
      model: "qwen3:1.7b",
      setting: "LLM_ADDRESS",
    });
    expect(plan.routes.transcribe).toMatchObject({ provider: "gemini", model: "gemini-2.5-flash-lite" });
    expect(plan.mediaFallback).toMatchObject({ provider: "gemini" });
    // The persona's # Models wins over the environment.
    const persona = planRoutes(
      { ...base, GEMINI_API_KEY: "k", OPENAI_BASE_URL: "http://x/v1", LLM_PLAN: "openai:a" },
      {
        plan: { provider: "gemini", model: "gemini-2.5-pro", setting: 'agents/Mira.md: field "Models"' },
      },
    );
    expect(persona.routes.plan).toMatchObject({ provider: "gemini", model: "gemini-2.5-pro" });
  });

  it("a route to a provider that is not set up is one line naming the setting", () => {
    expect(() =>
      planRoutes({ ...base, OPENAI_BASE_URL: "http://x/v1", OPENAI_MODEL: "m", LLM_PLAN: "gemini" }),
    ).toThrow("LLM_PLAN: routes plan to gemini, but GEMINI_API_KEY is not set");
    expect(() => planRoutes({ ...base, GEMINI_API_KEY: "k", LLM_ADDRESS: "openai:m" })).toThrow(
      /^LLM_ADDRESS: routes address to openai, but OPENAI_BASE_URL is not set/,
    );
    expect(() => planRoutes({ ...base, OPENAI_BASE_URL: "http://x/v1" })).toThrow(
      /^OPENAI_MODEL: must be set/,
    );
    expect(() => planRoutes({ ...base, GEMINI_API_KEY: "k", LLM_SUMMARY: "mistral" })).toThrow(
      /^LLM_SUMMARY: "mistral" is not a provider/,
    );
  });

  it("a local server's models cost 0; a hosted one's are unpriced unless LLM_PRICES names them", () => {
    const local = planRoutes({
      ...base,
      OPENAI_BASE_URL: "http://127.0.0.1:8080/v1",
      OPENAI_MODEL: "qwen3:8b",
    });
    const t = withLocalPrices(DEFAULT_PRICES, [local], "http://127.0.0.1:8080/v1");
    expect(estimateCost(t, "qwen3:8b", { promptTokens: 1000, outputTokens: 100, thinkingTokens: 0 })).toBe(0);
    const hosted = withLocalPrices(DEFAULT_PRICES, [local], "https://openrouter.ai/api/v1");
    expect(
      estimateCost(hosted, "qwen3:8b", { promptTokens: 1000, outputTokens: 100, thinkingTokens: 0 }),
    ).toBeUndefined();
  });

  it("one persona on both: each purpose reaches its server, a video goes to Gemini, usage from both is told", async () => {
    const gemini = await GeminiFake.start();
    const openai = await OpenAiFake.start();
    closers.push(
      () => gemini.close(),
      () => openai.close(),
    );
    const log = captureLogger();
    const { llm } = createLlm({
      env: {
        ...base,
        GEMINI_API_KEY: "k",
        GOOGLE_GEMINI_BASE_URL: gemini.baseUrl,
        OPENAI_BASE_URL: openai.baseUrl,
        LLM_ADDRESS: "openai:fake-model",
        LLM_MEDIA: "openai:fake-model",
      },
      logger: log.logger,
    });
    const used: string[] = [];
    llm.onUsage((u) => used.push(`${u.purpose}:${u.model}`));
    const schema = z.object({ tasks: z.array(z.unknown()) });
    const text = (t: string) => [{ role: "user" as const, parts: [{ text: t }] }];
    await llm.generateJson({ purpose: "plan", schema, systemInstruction: "s", contents: text("plan") });
    await llm.generateJson({ purpose: "address", schema, systemInstruction: "s", contents: text("address") });
    await llm.generateJson({
      purpose: "describe",
      schema,
      systemInstruction: "s",
      contents: [
        {
          role: "user",
          parts: [{ text: "a clip" }, { inlineData: { mimeType: "video/mp4", data: "AAAA" } }],
        },
      ],
    });
    expect(used).toEqual(["plan:gemini-2.5-flash", "address:fake-model", "describe:gemini-2.5-flash-lite"]);
    expect(openai.requests).toHaveLength(1);
    expect(gemini.requests).toHaveLength(2);
  });
});
