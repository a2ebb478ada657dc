/**
 * The OpenAI-compatible provider: the real `openai` SDK against the loopback fake, through the
 * same `Llm` contract as Gemini (a schema-checked answer, one repair call, outages that delay).
 */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { OpenAiClient } from "../../src/llm/openai-client";
import { OpenAiLlm, SHORTENED_NOTE } from "../../src/llm/openai-llm";
import { llmUnavailable } from "../../src/llm/errors";
import { LlmModelMissingError } from "../../src/llm/openai-errors";
import { checkOpenAi } from "../../src/llm/openai-check";
import { planRoutes } from "../../src/llm/providers";
import { OpenAiFake } from "../support/openai-fake";
import { captureLogger } from "../support/log-capture";

const schema = z.object({ say: z.string(), n: z.number() });
let fake: OpenAiFake;
afterEach(async () => fake?.close());

function build(o: { timeoutMs?: number; maxAttempts?: number; sleeps?: number[]; key?: string } = {}) {
  const log = captureLogger();
  const client = new OpenAiClient({
    baseUrl: fake.baseUrl,
    apiKey: o.key ?? "local-any-value",
    model: "fake-model",
    logger: log.logger,
    maxAttempts: o.maxAttempts ?? 3,
    timeoutMs: o.timeoutMs ?? 5000,
    sleep: async (ms) => void o.sleeps?.push(ms),
  });
  const llm = new OpenAiLlm({ client, logger: log.logger });
  return { llm, client, log };
}
const ask = (llm: OpenAiLlm, text = "hello") =>
  llm.generateJson({
    purpose: "address",
    schema,
    systemInstruction: "be brief",
    contents: [{ role: "user", parts: [{ text }] }],
  });

describe("OpenAI-compatible provider", () => {
  it("asks with response_format json_schema and gets a checked answer, tokens accounted", async () => {
    fake = await OpenAiFake.start();
    fake.reply({ json: { say: "hi", n: 1 }, usage: { prompt_tokens: 30, completion_tokens: 5 } });
    const { llm } = build();
    const usage: unknown[] = [];
    llm.onUsage((u) => usage.push(u));
    const out = await ask(llm);
    expect(out).toMatchObject({ ok: true, value: { say: "hi", n: 1 }, calls: 1 });
    const body = fake.requests[0]!.body;
    expect(body.response_format?.type).toBe("json_schema");
    expect(body.response_format?.json_schema?.schema).toMatchObject({
      type: "object",
      required: ["say", "n"],
    });
    expect(body.messages[0]).toEqual({ role: "system", content: "be brief" });
    expect(usage).toEqual([
      expect.objectContaining({ purpose: "address", model: "fake-model", promptTokens: 30, outputTokens: 5 }),
    ]);
  });

  it("a server without json_schema gets JSON mode with the schema in the prompt, and keeps it", async () => {
    fake = await OpenAiFake.start({ jsonSchema: false });
    fake.reply({ json: { say: "a", n: 1 } }, { json: { say: "b", n: 2 } });
    const { llm, log } = build();
    expect(await ask(llm)).toMatchObject({ ok: true, value: { say: "a" } });
    expect(await ask(llm)).toMatchObject({ ok: true, value: { say: "b" } });
    const types = fake.requests.map((r) => r.body.response_format?.type);
    expect(types).toEqual(["json_schema", "json_object", "json_object"]);
    const system = fake.requests[1]!.body.messages[0]!.content as string;
    expect(system).toContain("matching this JSON Schema");
    expect(log.lines().filter((l) => String(l.msg).includes("does not take response_format"))).toHaveLength(
      1,
    );
  });

  it("a server with neither gets plain text; a fenced answer with a think block is read", async () => {
    fake = await OpenAiFake.start({ jsonSchema: false, jsonObject: false });
    fake.reply({ text: '<think>they greet me</think>\nHere you go:\n```json\n{"say":"yo","n":3}\n```' });
    const { llm } = build();
    expect(await ask(llm)).toMatchObject({ ok: true, value: { say: "yo", n: 3 } });
    expect(fake.requests.at(-1)!.body.response_format).toBeUndefined();
  });

  it("garbage gets one repair request showing the answer and the problem; garbage twice is silence", async () => {
    fake = await OpenAiFake.start();
    fake.reply({ text: "sure! I would say hi" }, { json: { say: "hi", n: 2 } });
    const { llm } = build();
    expect(await ask(llm)).toMatchObject({ ok: true, calls: 2 });
    const repair = fake.requests[1]!.body.messages;
    expect(repair.at(-2)).toEqual({ role: "assistant", content: "sure! I would say hi" });
    expect(repair.at(-1)!.content).toMatch(/cannot be used: not JSON/);
    fake.reply({ json: { say: 1 } }, { json: { nope: true } });
    expect(await ask(llm)).toMatchObject({ ok: false, kind: "malformed", calls: 2 });
  });

  it("429 with Retry-After waits what the server asked; 503 until the attempts run out is an outage with retryInMs", async () => {
    fake = await OpenAiFake.start();
    const sleeps: number[] = [];
    fake.reply({ status: 429, retryAfter: "2" }, { json: { say: "ok", n: 1 } });
    const { llm, client } = build({ sleeps });
    expect(await ask(llm)).toMatchObject({ ok: true });
    expect(sleeps).toEqual([2000]);
    fake.reply({ status: 503 }, { status: 503 }, { status: 503 });
    const err = await ask(llm).catch((e: unknown) => e);
    expect(llmUnavailable(err)).toMatchObject({ model: "fake-model", code: "LLM_503" });
    expect(client.availability.isUp("fake-model")).toBe(false);
    // While down, a second call is not sent at all: one request at a time while failing.
    const before = fake.requests.length;
    const refused = await ask(llm).catch((e: unknown) => e);
    expect(llmUnavailable(refused)?.code).toBe("LLM_UNAVAILABLE");
    expect(fake.requests.length).toBe(before);
  });

  it("a slow server times out, a dropped connection and a garbled body are transient", async () => {
    fake = await OpenAiFake.start();
    fake.reply({ delayMs: 400, then: { json: { say: "late", n: 1 } } });
    const slow = build({ timeoutMs: 100, maxAttempts: 1 });
    expect(llmUnavailable(await ask(slow.llm).catch((e: unknown) => e))?.code).toBe("LLM_TIMEOUT");
    await fake.close();
    fake = await OpenAiFake.start();
    fake.reply({ reset: true }, { garbled: true }, { json: { say: "back", n: 1 } });
    const { llm } = build({ maxAttempts: 3 });
    expect(await ask(llm)).toMatchObject({ ok: true, value: { say: "back" } });
    expect(fake.requests).toHaveLength(3);
  });

  it("a context too long is shortened once (start and newest kept), never sent again as is", async () => {
    fake = await OpenAiFake.start();
    fake.reply({ contextTooLong: true }, { json: { say: "fits", n: 1 } });
    const { llm } = build();
    const long = ["HEADER", ...Array.from({ length: 100 }, (_, i) => `message ${i}`), "NEWEST QUESTION"].join(
      "\n",
    );
    expect(await ask(llm, long)).toMatchObject({ ok: true, value: { say: "fits" } });
    const second = fake.lastUserText(1);
    expect(second).toContain("HEADER");
    expect(second).toContain("NEWEST QUESTION");
    expect(second).toContain(SHORTENED_NOTE);
    expect(second).not.toContain("message 40\n");
    expect(second.length).toBeLessThan(long.length);
    fake.reply({ contextTooLong: true }, { contextTooLong: true });
    expect(await ask(llm, long)).toMatchObject({ ok: false, kind: "empty" });
  });

  it("images go as image_url data URLs", async () => {
    fake = await OpenAiFake.start();
    fake.reply({ json: { say: "a cat", n: 1 } });
    const { llm } = build();
    await llm.generateJson({
      purpose: "describe",
      schema,
      systemInstruction: "describe",
      contents: [
        {
          role: "user",
          parts: [{ text: "what is it" }, { inlineData: { mimeType: "image/jpeg", data: "AAAA" } }],
        },
      ],
    });
    expect(fake.requests[0]!.body.messages[1]!.content).toEqual([
      { type: "text", text: "what is it" },
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,AAAA" } },
    ]);
  });

  it("a model the server does not have is a permanent error naming it", async () => {
    fake = await OpenAiFake.start({ models: ["llama3.2"] });
    const { llm } = build();
    const err = await ask(llm).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmModelMissingError);
    expect(llmUnavailable(err)).toBeUndefined();
  });

  it("the check at start names the setting: unreachable URL, refused key, unknown model", async () => {
    fake = await OpenAiFake.start({ models: ["llama3.2"], apiKey: "right-key-123" });
    const env = {
      GEMINI_MODEL: "g",
      GEMINI_ADDRESS_MODEL: "g",
      GEMINI_SUMMARY_MODEL: "g",
      GEMINI_MEDIA_MODEL: "g",
    };
    const plan = planRoutes({ ...env, OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: "qwen3:8b" });
    const wrongKey = build({ key: "wrong-key-456" });
    expect(await checkOpenAi(wrongKey.client, [plan])).toMatch(
      /^OPENAI_API_KEY: .* refused the key \(HTTP 401\)/,
    );
    const right = build({ key: "right-key-123" });
    expect(await checkOpenAi(right.client, [plan])).toBe(
      `OPENAI_MODEL: the server at ${fake.baseUrl} has no model "qwen3:8b" (it has: llama3.2); pull or load it, or name one it has`,
    );
    const ok = planRoutes({ ...env, OPENAI_BASE_URL: fake.baseUrl, OPENAI_MODEL: "llama3.2" });
    expect(await checkOpenAi(right.client, [ok])).toBeUndefined();
    await fake.close();
    // A server that never answered anyone (no kept-alive socket to it), now gone.
    fake = await OpenAiFake.start();
    await fake.close();
    const gone = build();
    expect(await checkOpenAi(gone.client, [ok], { timeoutMs: 2000 })).toMatch(
      /^OPENAI_BASE_URL: nothing answers at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)/,
    );
  });
});
