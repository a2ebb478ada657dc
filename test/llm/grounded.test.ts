import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GroundedLookup, MAX_ANSWER_CHARS, SEARCH_FEE_USD } from "../../src/llm/grounded";
import type { LlmUsage } from "../../src/llm/types";
import { GeminiFake, isLookUpRequest } from "../support/gemini-fake";

let fake: GeminiFake;
let logLines: string[];
let usage: LlmUsage[];

function client(): GroundedLookup {
  const logger = pino({ level: "debug" }, { write: (line: string) => void logLines.push(line) });
  const c = new GroundedLookup({
    apiKey: "test-key",
    model: "gemini-2.5-flash",
    baseUrl: fake.baseUrl,
    logger,
  });
  c.onUsage((u) => usage.push(u));
  return c;
}
const logged = (msg: string) =>
  logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === msg);

beforeEach(async () => {
  fake = await GeminiFake.start();
  logLines = [];
  usage = [];
});
afterEach(async () => {
  await fake.close();
});

describe("a look-up is one grounded Gemini call through the real SDK", () => {
  it("a question goes out with the Google Search tool only; the answer keeps its text (no footnote markers), sources and queries, and costs the search fee", async () => {
    fake.script({
      grounded: {
        text: "Riga tomorrow: rain, 4 °C [1]. Wind from the west [1, 2].",
        sources: [
          { uri: "https://weather.example/riga", title: "weather.example" },
          { uri: "https://news.example/w", title: "news.example" },
        ],
        queries: ["weather Riga tomorrow"],
        toolTokens: 300,
      },
    });
    const a = await client().lookUp({ query: "weather in Riga tomorrow", chatId: "-1001", userId: "42" });
    const body = fake.requests[0]!.body;
    expect(isLookUpRequest(body)).toBe(true);
    expect(body.tools).toEqual([{ googleSearch: {} }]);
    expect(body.generationConfig?.responseJsonSchema).toBeUndefined();
    expect(JSON.stringify(body.contents)).toContain("Question: weather in Riga tomorrow");
    expect(a.text).toBe("Riga tomorrow: rain, 4 °C. Wind from the west.");
    expect(a.sources.map((s) => s.uri)).toEqual(["https://weather.example/riga", "https://news.example/w"]);
    expect(a.queries).toEqual(["weather Riga tomorrow"]);
    expect(a.noMetadata).toBe(false);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({
      purpose: "look_up",
      chatId: "-1001",
      userId: "42",
      feeUsd: SEARCH_FEE_USD,
    });
    expect(usage[0]!.promptTokens).toBeGreaterThan(300); // the results are billed as input
  });

  it("a link goes out with URL context only (no search fee); every retrieval status is read, and a URL not reported on counts as unread", async () => {
    const statuses = ["SUCCESS", "ERROR", "PAYWALL", "UNSAFE", "UNSPECIFIED"] as const;
    for (const status of statuses)
      fake.script({
        grounded: { text: "The page says hello.", urls: [{ url: "https://a.example/p", status }] },
      });
    const c = client();
    const got = [];
    for (const _s of statuses) got.push((await c.lookUp({ url: "https://a.example/p" })).urls[0]!.status);
    expect(got).toEqual(["success", "error", "paywall", "unsafe", "unspecified"]);
    expect(fake.requests[0]!.body.tools).toEqual([{ urlContext: {} }]);
    expect(usage.every((u) => u.feeUsd === undefined)).toBe(true);

    fake.script({ grounded: { text: "Nothing.", urls: [] } });
    const other = await c.lookUp({ url: "https://b.example/q" });
    expect(other.urls).toEqual([{ url: "https://b.example/q", status: "unspecified" }]);
  });

  it("an answer without grounding metadata is kept, without sources, and says so in one log line", async () => {
    fake.script({ grounded: { text: "It opens at 9.", noMetadata: true } });
    const a = await client().lookUp({ query: "when does the Riga market open" });
    expect(a).toMatchObject({ text: "It opens at 9.", sources: [], queries: [], noMetadata: true });
    expect(logged("look-up answered without grounding metadata: no sources to show")).toHaveLength(1);
  });

  it("a huge answer (a 10 MB page's text echoed back) is cut to a few paragraphs, with a log line", async () => {
    fake.script({
      grounded: { text: "x".repeat(10_000_000), urls: [{ url: "https://big.example/", status: "SUCCESS" }] },
    });
    const a = await client().lookUp({ url: "https://big.example/" });
    expect(a.cut).toBe(true);
    expect(Array.from(a.text)).toHaveLength(MAX_ANSWER_CHARS);
    expect(logged("look-up answer cut")).toHaveLength(1);
  });

  it("a failed call is an error that says so (the caller answers without it); nothing is retried", async () => {
    fake.script({ status: 503 });
    await expect(client().lookUp({ query: "q" })).rejects.toThrow(/the look-up failed/);
    expect(fake.requests).toHaveLength(1);
  });
});
