/** The loopback Gemini fake itself, spoken to with plain fetch so its wire shapes are pinned down. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GeminiFake } from "../support/gemini-fake";

let fake: GeminiFake;

beforeEach(async () => {
  fake = await GeminiFake.start();
});

afterEach(async () => {
  await fake.close();
});

async function generate(
  body: unknown = { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  model = "gemini-2.5-flash",
) {
  const res = await fetch(`${fake.baseUrl}/v1beta/models/${model}:generateContent`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "k" },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function firstText(json: Record<string, unknown>): unknown {
  const candidates = json.candidates as { content?: { parts?: { text?: string }[] } }[] | undefined;
  return candidates?.[0]?.content?.parts?.[0]?.text;
}

describe("GeminiFake", () => {
  it("answers scripted replies in order, then the respondWith fallback, then the default", async () => {
    fake.script({ json: { n: 1 } }, { text: "{not json" });
    expect(firstText((await generate()).json)).toBe('{"n":1}');
    expect(firstText((await generate()).json)).toBe("{not json");

    fake.respondWith((_body, index) => ({ json: { index } }));
    expect(firstText((await generate()).json)).toBe('{"index":2}');

    const other = await GeminiFake.start();
    try {
      const res = await fetch(`${other.baseUrl}/v1beta/models/m:generateContent`, {
        method: "POST",
        body: "{}",
      });
      const json = (await res.json()) as Record<string, unknown>;
      expect(firstText(json)).toBe('{"tasks":[]}');
    } finally {
      await other.close();
    }
  });

  it("records model, parsed body and headers", async () => {
    await generate(
      { contents: [{ role: "user", parts: [{ text: "yo" }] }], generationConfig: { temperature: 0.2 } },
      "gemini-x",
    );
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]?.model).toBe("gemini-x");
    expect(fake.requests[0]?.body.contents?.[0]?.parts?.[0]?.text).toBe("yo");
    expect(fake.requests[0]?.body.generationConfig?.temperature).toBe(0.2);
    expect(fake.requests[0]?.headers["x-goog-api-key"]).toBe("k");
  });

  it("includes usageMetadata and modelVersion on success", async () => {
    fake.script({ text: "12345678" });
    const { json } = await generate();
    expect(json.modelVersion).toBe("gemini-2.5-flash");
    const usage = json.usageMetadata as Record<string, number>;
    expect(usage.candidatesTokenCount).toBe(2);
    expect(usage.promptTokenCount).toBeGreaterThan(0);
    expect(usage.totalTokenCount).toBe((usage.promptTokenCount ?? 0) + 2);
  });

  it("shapes 429 like Google, with RetryInfo when a delay is given", async () => {
    fake.script({ status: 429, retryDelaySeconds: 7 }, { status: 429 });
    const first = await generate();
    expect(first.status).toBe(429);
    const error = first.json.error as { code: number; status: string; details: Record<string, unknown>[] };
    expect(error).toMatchObject({ code: 429, status: "RESOURCE_EXHAUSTED" });
    expect(error.details).toContainEqual({
      "@type": "type.googleapis.com/google.rpc.RetryInfo",
      retryDelay: "7s",
    });
    const second = await generate();
    const details = (second.json.error as { details: Record<string, unknown>[] }).details;
    expect(details.some((d) => d["@type"] === "type.googleapis.com/google.rpc.RetryInfo")).toBe(false);
  });

  it("serves 500/503, safety blocks and blocked prompts", async () => {
    fake.script({ status: 500 }, { status: 503 }, { safety: true }, { blockedPrompt: true });
    expect((await generate()).json.error).toMatchObject({ code: 500, status: "INTERNAL" });
    expect((await generate()).json.error).toMatchObject({ code: 503, status: "UNAVAILABLE" });
    const safety = await generate();
    expect(safety.json.candidates).toMatchObject([{ finishReason: "SAFETY" }]);
    expect(firstText(safety.json)).toBeUndefined();
    const blocked = await generate();
    expect(blocked.json.promptFeedback).toMatchObject({ blockReason: "SAFETY" });
    expect(blocked.json.candidates).toBeUndefined();
  });

  it("delays an answer with a real timer", async () => {
    fake.script({ delayMs: 120, then: { json: { late: true } } });
    const t0 = performance.now();
    const { json } = await generate();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(100);
    expect(firstText(json)).toBe('{"late":true}');
  });

  it("answers 404 JSON for any other route or method", async () => {
    const res = await fetch(`${fake.baseUrl}/v1beta/models/x:streamGenerateContent`, {
      method: "POST",
      body: "{}",
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, status: "NOT_FOUND" } });
    const get = await fetch(`${fake.baseUrl}/v1beta/models/x:generateContent`);
    expect(get.status).toBe(404);
    expect(fake.requests).toHaveLength(0);
  });

  it("closes promptly with a request still waiting on a delayed reply", async () => {
    fake.script({ delayMs: 60_000, then: { json: {} } });
    const pending = generate().catch((e: unknown) => e);
    while (fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const t0 = performance.now();
    await fake.close();
    expect(performance.now() - t0).toBeLessThan(1_000);
    expect(await pending).toBeInstanceOf(Error);
    // afterEach closes again: that must be harmless.
    fake = await GeminiFake.start();
  });

  it("fails the way an unwell Gemini does: a proxy's 502 page, Retry-After headers, a reset connection, a garbled 200", async () => {
    fake.script(
      { status: 502 },
      { status: 503, retryAfter: "7" },
      { status: 429, retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT" },
      { reset: true },
      { garbled: true },
    );
    const post = () =>
      fetch(`${fake.baseUrl}/v1beta/models/m:generateContent`, { method: "POST", body: "{}" });

    const page = await post();
    expect(page.status).toBe(502);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(await page.text()).toContain("<title>502 Bad Gateway</title>");

    const busy = await post();
    expect(busy.status).toBe(503);
    expect(busy.headers.get("retry-after")).toBe("7");
    expect(await busy.json()).toMatchObject({ error: { status: "UNAVAILABLE" } });

    const quota = await post();
    expect(quota.status).toBe(429);
    expect(quota.headers.get("retry-after")).toBe("Wed, 21 Oct 2015 07:28:00 GMT");
    await quota.text();

    await expect(post()).rejects.toThrow(/fetch failed/);

    const garbled = await post();
    expect(garbled.status).toBe(200);
    await expect(garbled.json()).rejects.toBeInstanceOf(SyntaxError);
    expect(fake.requests).toHaveLength(5);
  });
});
