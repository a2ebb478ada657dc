/** The thinking budget per purpose, set with GEMINI_THINKING_BUDGET: what the request carries. */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { GeminiClient } from "../../src/llm/gemini-client";
import { GeminiLlm } from "../../src/llm/llm";
import { PURPOSES } from "../../src/config/llm-purposes";
import { readEnv } from "../../src/config/env";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";

let fake: GeminiFake | undefined;
afterEach(async () => {
  await fake?.close();
});

describe("GEMINI_THINKING_BUDGET", () => {
  it("reads purpose=tokens pairs; an unknown purpose or a bad part is an error naming it", () => {
    expect(readEnv({ GEMINI_THINKING_BUDGET: "plan=256, address=0" }).GEMINI_THINKING_BUDGET).toEqual({
      plan: 256,
      address: 0,
    });
    expect(readEnv({}).GEMINI_THINKING_BUDGET).toBeUndefined();
    expect(() => readEnv({ GEMINI_THINKING_BUDGET: "planning=256" })).toThrow(
      /GEMINI_THINKING_BUDGET.*"planning"/s,
    );
    expect(() => readEnv({ GEMINI_THINKING_BUDGET: "plan=lots" })).toThrow(/"plan=lots"/);
    expect(() => readEnv({ GEMINI_THINKING_BUDGET: "plan=99999" })).toThrow(/above 24576/);
  });

  it("a plan carries 512 thinking tokens by default, the configured budget when set; other purposes keep theirs", async () => {
    expect(PURPOSES.plan.thinkingBudget).toBe(512);
    fake = await GeminiFake.start();
    const log = captureLogger();
    const client = new GeminiClient({
      apiKey: "k",
      model: "m",
      baseUrl: fake.baseUrl,
      logger: log.logger,
      maxAttempts: 1,
    });
    const llm = new GeminiLlm({
      client,
      logger: log.logger,
      model: "gemini-2.5-flash",
      thinking: { plan: 128 },
    });
    const call = (purpose: "plan" | "summarise") =>
      llm.generateJson({
        purpose,
        schema: z.object({ ok: z.boolean() }),
        systemInstruction: "x",
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
      });
    fake.script({ json: { ok: true } }, { json: { ok: true } });
    await call("plan");
    await call("summarise");
    const budgets = fake.requests.map(
      (r) => (r.body.generationConfig as { thinkingConfig?: { thinkingBudget: number } }).thinkingConfig,
    );
    expect(budgets).toEqual([{ thinkingBudget: 128 }, { thinkingBudget: 0 }]);
  });
});
