/**
 * GeminiClient against the loopback GeminiFake, through the real @google/genai SDK (no vi.mock):
 * what goes over the wire, how answers and failures come back, and what gets logged.
 */
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  GeminiClient,
  type GeminiClientOptions,
  type JsonGenerationRequest,
} from "../../src/llm/gemini-client";
import {
  LlmBlockedError,
  LlmEmptyResponseError,
  LlmHttpError,
  LlmNetworkError,
  LlmUnavailableError,
  LlmUnparsableError,
} from "../../src/llm/errors";
import { GeminiFake } from "../support/gemini-fake";

const KEY = "AIzaFAKE-secret-key-0123456789";
const MODEL = "gemini-2.5-flash";

const SCHEMA = {
  type: "object",
  properties: {
    tasks: { type: "array", items: { type: "object", properties: { kind: { type: "string" } } } },
  },
  required: ["tasks"],
};

function request(overrides: Partial<JsonGenerationRequest> = {}): JsonGenerationRequest {
  return {
    systemInstruction: "You are Mira. Answer with a JSON plan.",
    contents: [
      { role: "user", parts: [{ text: "hi there" }] },
      { role: "model", parts: [{ text: '{"tasks":[]}' }] },
      { role: "user", parts: [{ text: "how are you?" }] },
    ],
    responseJsonSchema: SCHEMA,
    temperature: 0.7,
    ...overrides,
  };
}

let fake: GeminiFake;
let logLines: string[];
let sleeps: number[];

function client(extra: Partial<GeminiClientOptions> = {}): GeminiClient {
  const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  return new GeminiClient({
    apiKey: KEY,
    model: MODEL,
    baseUrl: fake.baseUrl,
    baseDelayMs: 4,
    maxDelayMs: 30_000,
    logger,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...extra,
  });
}

function logs(): Record<string, unknown>[] {
  return logLines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

beforeEach(async () => {
  fake = await GeminiFake.start();
  logLines = [];
  sleeps = [];
});

afterEach(async () => {
  await fake.close();
});

describe("GeminiClient wire format", () => {
  it("posts to /v1beta/models/{model}:generateContent with the key header, JSON mode and only user/model turns", async () => {
    fake.script({ json: { tasks: [{ kind: "send" }] } });
    const result = await client().generateJson(request());

    expect(fake.requests).toHaveLength(1);
    const [sent] = fake.requests;
    expect(sent?.model).toBe(MODEL);
    expect(sent?.headers["x-goog-api-key"]).toBe(KEY);
    expect(sent?.headers["content-type"]).toContain("application/json");
    expect(sent?.body.systemInstruction?.parts?.[0]?.text).toBe("You are Mira. Answer with a JSON plan.");
    expect(sent?.body.generationConfig?.responseMimeType).toBe("application/json");
    // Sent as JSON Schema, untouched by the SDK; the OpenAPI-style responseSchema is not used.
    expect(sent?.body.generationConfig?.responseJsonSchema).toEqual(SCHEMA);
    expect(sent?.body.generationConfig?.responseSchema).toBeUndefined();
    expect(sent?.body.generationConfig?.temperature).toBe(0.7);
    expect(sent?.body.contents?.map((c) => c.role)).toEqual(["user", "model", "user"]);
    expect(sent?.body.contents?.[2]?.parts?.[0]?.text).toBe("how are you?");

    expect(JSON.parse(result.text)).toEqual({ tasks: [{ kind: "send" }] });
    expect(result.attempts).toBe(1);
    expect(result.model).toBe(MODEL);
    expect(result.finishReason).toBe("STOP");
  });

  it("parses usage metadata into promptTokens/outputTokens/totalTokens", async () => {
    const answer = { tasks: [{ kind: "reply", text: "doing fine, thanks" }] };
    fake.script({ json: answer });
    const { usage } = await client().generateJson(request());
    expect(usage.promptTokens).toBeGreaterThan(10);
    expect(usage.outputTokens).toBe(Math.ceil(JSON.stringify(answer).length / 4));
    expect(usage.totalTokens).toBe(usage.promptTokens + usage.outputTokens);
  });

  it("counts thinking tokens and reports every answered call's usage, blocked ones too, with its purpose", async () => {
    const c = client();
    const seen: unknown[] = [];
    const off = c.onUsage((u) => seen.push(u));
    fake.script(
      {
        json: { tasks: [] },
        usage: { promptTokenCount: 1200, candidatesTokenCount: 300, thoughtsTokenCount: 500 },
      },
      { safety: true },
    );
    const { usage } = await c.generateJson(request({ purpose: "plan" }));
    expect(usage).toEqual({ promptTokens: 1200, outputTokens: 300, thinkingTokens: 500, totalTokens: 2000 });
    await expect(c.generateJson(request())).rejects.toBeInstanceOf(LlmBlockedError);
    expect(seen).toEqual([
      { purpose: "plan", model: MODEL, promptTokens: 1200, outputTokens: 300, thinkingTokens: 500 },
      {
        purpose: "other",
        model: MODEL,
        promptTokens: expect.any(Number),
        outputTokens: 0,
        thinkingTokens: 0,
      },
    ]);
    off();
    fake.script({ json: { tasks: [] } });
    await c.generateJson(request());
    expect(seen).toHaveLength(2);
  });

  it("passes malformed JSON text through untouched (validation is the caller's job)", async () => {
    fake.script({ text: '{"tasks": [' });
    const result = await client().generateJson(request());
    expect(result.text).toBe('{"tasks": [');
  });

  it("rejects a system role inside contents before sending anything", async () => {
    const bad = request({ contents: [{ role: "system" as "user", parts: [{ text: "be nice" }] }] });
    await expect(client().generateJson(bad)).rejects.toThrow(/contents\[0\] has role "system"/);
    expect(fake.requests).toHaveLength(0);
  });

  it("logs one info line per success with component llm and token counts", async () => {
    fake.script({ json: { tasks: [] } });
    await client().generateJson(request());
    const info = logs().filter((l) => l.level === 30);
    expect(info).toHaveLength(1);
    expect(info[0]).toMatchObject({ component: "llm", model: MODEL, attempts: 1 });
    expect(info[0]).toHaveProperty("promptTokens");
    expect(info[0]).toHaveProperty("outputTokens");
    expect(info[0]).toHaveProperty("totalTokens");
    expect(typeof info[0]?.ms).toBe("number");
  });
});

describe("GeminiClient retries", () => {
  it("honours the 429 RetryInfo retryDelay, then succeeds", async () => {
    fake.script({ status: 429, retryDelaySeconds: 2 }, { json: { tasks: [] } });
    const result = await client().generateJson(request());
    expect(fake.requests).toHaveLength(2);
    expect(result.attempts).toBe(2);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeCloseTo(2000, -1);
    // A blip cured by the next attempt is not an outage: an info line, no warning.
    expect(logs().filter((l) => Number(l.level) >= 40)).toEqual([]);
  });

  it("gives up at once when the server asks for a longer wait than maxDelayMs", async () => {
    fake.script({ status: 429, retryDelaySeconds: 90 });
    const err = await client({ maxDelayMs: 10_000 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmHttpError);
    expect(err).toMatchObject({
      status: 429,
      retryAfterMs: 90_000,
      apiStatus: "RESOURCE_EXHAUSTED",
      attempts: 1,
    });
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("backs off exponentially on 500 and succeeds on the third attempt", async () => {
    fake.script({ status: 500 }, { status: 500 }, { json: { tasks: [] } });
    const result = await client({ baseDelayMs: 10 }).generateJson(request());
    expect(fake.requests).toHaveLength(3);
    expect(result.attempts).toBe(3);
    expect(sleeps).toHaveLength(2);
    // Equal jitter: between half the step and the step (10 ms, then 20 ms).
    expect(sleeps[0]).toBeGreaterThanOrEqual(5);
    expect(sleeps[0]).toBeLessThanOrEqual(10);
    expect(sleeps[1]).toBeGreaterThanOrEqual(10);
    expect(sleeps[1]).toBeLessThanOrEqual(20);
  });

  it("bounds the backoff by maxDelayMs", async () => {
    fake.respondWith(() => ({ status: 503 }));
    await client({ baseDelayMs: 1000, maxDelayMs: 1500, maxAttempts: 4 })
      .generateJson(request())
      .catch(() => undefined);
    expect(sleeps).toHaveLength(3);
    for (const ms of sleeps) expect(ms).toBeLessThanOrEqual(1500);
  });

  it("gives up after maxAttempts on a persistent 503 with an LlmHttpError", async () => {
    fake.respondWith(() => ({ status: 503 }));
    const err = await client({ maxAttempts: 3 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmHttpError);
    expect(err).toMatchObject({ status: 503, retryable: true, attempts: 3, apiStatus: "UNAVAILABLE" });
    expect((err as Error).message).toContain("503");
    expect((err as Error).message).toContain("The model is overloaded");
    expect(fake.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("does not retry a non-retryable status (404)", async () => {
    const c = client({ baseUrl: `${fake.baseUrl}/nowhere` });
    const err = await c.generateJson(request()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmHttpError);
    expect(err).toMatchObject({ status: 404, retryable: false, attempts: 1 });
    expect(sleeps).toEqual([]);
  });

  it("retries an attempt that exceeds timeoutMs and succeeds on the next", async () => {
    fake.script({ delayMs: 2_000, then: { json: { tasks: [] } } }, { json: { tasks: [{ kind: "read" }] } });
    const result = await client({ timeoutMs: 150 }).generateJson(request());
    expect(fake.requests).toHaveLength(2);
    expect(result.attempts).toBe(2);
    expect(JSON.parse(result.text)).toEqual({ tasks: [{ kind: "read" }] });
  });

  it("ends in an LlmNetworkError (timedOut) when every attempt is too slow", async () => {
    fake.respondWith(() => ({ delayMs: 2_000, then: { json: { tasks: [] } } }));
    const err = await client({ timeoutMs: 100, maxAttempts: 2 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmNetworkError);
    expect(err).toMatchObject({ timedOut: true, attempts: 2 });
    expect(fake.requests).toHaveLength(2);
  });

  it("retries a refused connection and ends in an LlmNetworkError", async () => {
    const dead = await GeminiFake.start();
    const deadUrl = dead.baseUrl;
    await dead.close();
    const err = await client({ baseUrl: deadUrl, maxAttempts: 2 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmNetworkError);
    expect(err).toMatchObject({ timedOut: false, attempts: 2 });
    expect((err as Error).message).toMatch(/ECONNREFUSED|fetch failed/);
    expect(sleeps).toHaveLength(1);
  });
});

describe("GeminiClient blocked and empty answers", () => {
  it("throws LlmBlockedError on a SAFETY candidate, without retrying", async () => {
    fake.script({ safety: true }, { json: { tasks: [] } });
    const err = await client()
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmBlockedError);
    expect(err).toMatchObject({ reason: "SAFETY", source: "candidate" });
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("throws LlmBlockedError when the prompt itself is blocked", async () => {
    fake.script({ blockedPrompt: true });
    const err = await client()
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmBlockedError);
    expect(err).toMatchObject({ reason: "SAFETY", source: "prompt" });
    expect(fake.requests).toHaveLength(1);
  });

  it("throws LlmEmptyResponseError on an empty text part", async () => {
    fake.script({ text: "" });
    const err = await client()
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmEmptyResponseError);
    expect(err).toMatchObject({ finishReason: "STOP" });
  });
});

describe("GeminiClient secrecy", () => {
  it("never puts the API key in logs or error messages", async () => {
    const errors: string[] = [];
    fake.script({ status: 429, retryDelaySeconds: 1 }, { status: 500 }, { json: { tasks: [] } });
    await client().generateJson(request());
    fake.respondWith(() => ({ status: 503 }));
    await client({ maxAttempts: 2 })
      .generateJson(request())
      .catch((e: unknown) => errors.push(String(e), JSON.stringify(e)));
    fake.script({ safety: true });
    fake.respondWith(() => ({ json: {} }));
    await client()
      .generateJson(request())
      .catch((e: unknown) => errors.push(String(e)));

    expect(logLines.length).toBeGreaterThanOrEqual(4);
    expect(errors.length).toBeGreaterThanOrEqual(2);
    const everything = [...logLines, ...errors].join("\n");
    expect(everything).not.toContain(KEY);
  });
});

describe("GeminiClient on an unwell Gemini", () => {
  it("retries a proxy's 502 page, a reset connection and a garbled 200, and names each readably", async () => {
    fake.script({ status: 502 }, { reset: true }, { garbled: true }, { json: { tasks: [] } });
    const result = await client({ maxAttempts: 4 }).generateJson(request());
    expect(result.attempts).toBe(4);
    // Each retry's line (the one with its delay) names what went wrong.
    const retries = logs().filter((l) => l.delayMs !== undefined);
    expect(retries.map((l) => l.status)).toEqual([502, "network", "unparsable"]);
    // The HTML page is reduced to its title, not pasted whole into the log.
    expect(String(retries[0]?.error)).toContain("502 Bad Gateway");
    expect(String(retries[0]?.error)).not.toContain("<html>");
  });

  it("a garbled 200 that persists ends in an LlmUnparsableError that says when to try again", async () => {
    fake.respondWith(() => ({ garbled: true }));
    const err = await client({ maxAttempts: 2 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmUnparsableError);
    expect((err as LlmUnparsableError).retryInMs).toBeGreaterThan(0);
  });

  it("an answer whose body never ends is cut off at 8 MB and retried like a garbled one; when it persists, an LlmUnparsableError", async () => {
    fake.script({ endless: true }, { json: { tasks: [{ kind: "send" }] } });
    const ok = await client({ maxAttempts: 3 }).generateJson(request());
    expect(ok.attempts).toBe(2);
    expect(ok.text).toBe('{"tasks":[{"kind":"send"}]}');
    const retry = logs().find((l) => l.delayMs !== undefined);
    expect(retry?.status).toBe("too large");
    expect(String(retry?.error)).toMatch(/larger than 8 MB; its download was stopped there/);
    // The client stopped reading near the cap: what went out is bounded (socket buffers aside).
    expect(fake.endlessSent).toBeGreaterThan(8 * 1024 * 1024);
    expect(fake.endlessSent).toBeLessThan(24 * 1024 * 1024);

    fake.respondWith(() => ({ endless: true }));
    const err = await client({ maxAttempts: 2 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmUnparsableError);
    expect((err as LlmUnparsableError).retryInMs).toBeGreaterThan(0);
    expect(fake.endlessSent).toBeLessThan(3 * 24 * 1024 * 1024);
  });

  it("honours a Retry-After header: waited when short, handed to the caller when long", async () => {
    fake.script({ status: 503, retryAfter: "3" }, { json: { tasks: [] } });
    await client().generateJson(request());
    expect(sleeps).toEqual([3000]);

    fake.script({ status: 503, retryAfter: "600" });
    const err = await client({ maxDelayMs: 10_000 })
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 503, retryAfterMs: 600_000, retryInMs: 600_000 });
  });

  it("once a call gives up, the model is down: one warning, later calls wait without a request, then one probe at a time", async () => {
    let now = 1_000_000;
    const c = client({ maxAttempts: 3, now: () => now, random: () => 1 });
    fake.respondWith(() => ({ status: 503 }));
    const first = await c.generateJson(request()).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(LlmHttpError);
    const wait = (first as LlmHttpError).retryInMs!;
    expect(wait).toBe(2_000); // the first pause (jitter pinned to its top)
    expect(fake.requests).toHaveLength(3);
    const started = logs().filter((l) => l.level === 40);
    expect(started).toHaveLength(1);
    expect(started[0]).toMatchObject({ component: "llm", model: MODEL });
    expect(String(started[0]?.msg)).toContain("HTTP 503");

    // Before the next try: refused at once, no request.
    const early = await c.generateJson(request()).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(LlmUnavailableError);
    expect((early as LlmUnavailableError).retryInMs).toBe(2_000);
    expect(fake.requests).toHaveLength(3);
    expect(c.availability.snapshot().down).toMatchObject([
      { model: MODEL, failures: 3, lastError: expect.stringContaining("HTTP 503") },
    ]);

    // At the next try: one probe, a single attempt; a concurrent call is refused meanwhile.
    now += 2_000;
    let release!: () => void;
    fake.script({ after: new Promise<void>((r) => (release = r)), then: { status: 503 } });
    const probe = c.generateJson(request()).catch((e: unknown) => e);
    while (fake.requests.length < 4) await new Promise((r) => setTimeout(r, 5));
    const beside = await c.generateJson(request()).catch((e: unknown) => e);
    expect(beside).toBeInstanceOf(LlmUnavailableError);
    release();
    const failedProbe = await probe;
    expect((failedProbe as LlmHttpError).retryInMs).toBe(4_000); // doubled
    expect(fake.requests).toHaveLength(4);

    // The model is back: the next probe succeeds, the outage ends with one more warning.
    now += 4_000;
    fake.script({ json: { tasks: [] } });
    await c.generateJson(request());
    expect(c.availability.snapshot()).toMatchObject({
      down: [],
      ended: 1,
      lastEnded: { model: MODEL, failures: 4 },
    });
    const warnings = logs().filter((l) => l.level === 40);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ model: MODEL, outageMs: 6_000, failures: 4 });
    // Up again: calls go out as usual.
    fake.script({ json: { tasks: [] } });
    await c.generateJson(request());
    expect(fake.requests).toHaveLength(6);
  });

  it("a permanent error stays permanent: no outage, no retry, no wait", async () => {
    fake.script({ status: 400, message: "API key not valid. Please pass a valid API key." });
    const err = await client()
      .generateJson(request())
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, retryable: false, retryInMs: undefined });
    expect((err as Error).message).toContain("API key not valid");
    expect(fake.requests).toHaveLength(1);
    expect(logs().filter((l) => l.level === 40)).toEqual([]);
  });

  it("the server's pause on a 429 (RetryInfo) is the outage's next try, honoured exactly", async () => {
    let now = 0;
    const c = client({ maxDelayMs: 10_000, now: () => now });
    fake.script({ status: 429, retryDelaySeconds: 45 });
    const err = await c.generateJson(request()).catch((e: unknown) => e);
    expect((err as LlmHttpError).retryInMs).toBe(45_000);
    now += 44_000;
    expect(await c.generateJson(request()).catch((e: unknown) => e)).toBeInstanceOf(LlmUnavailableError);
    now += 1_000;
    fake.script({ json: { tasks: [] } });
    await c.generateJson(request());
    expect(fake.requests).toHaveLength(2);
  });
});
