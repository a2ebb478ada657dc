/**
 * The scorecard's recall scenes (src/eval/recall.ts) with the Gemini fake's deterministic vectors,
 * through the real SDK over loopback: every paraphrased question is embedded as a plan's query,
 * and recall@5 is reported by words alone and hybrid — the fake's vectors find what the words miss.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GeminiEmbedder } from "../../src/llm/gemini-embedder";
import { FAKE_VECTORS, recallText, runRecall } from "../../src/eval/recall";
import { RECALL_QUESTIONS } from "../../src/eval/recall-set";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";

let gemini: GeminiFake;
beforeAll(async () => {
  gemini = await GeminiFake.start();
});
afterAll(async () => gemini.close());

describe("npm run eval's recall scenes", () => {
  it("report recall@5 by words and hybrid; with the fake's vectors hybrid finds the paraphrases the words miss", async () => {
    const { logger } = captureLogger("error");
    const embedder = new GeminiEmbedder({
      apiKey: "k",
      model: "fake-embed",
      dimensions: 256,
      baseUrl: gemini.baseUrl,
      logger,
    });
    const r = await runRecall({ embedder, fake: true, logger });
    expect(r).toMatchObject({
      questions: RECALL_QUESTIONS.length,
      memories: 320,
      notEmbedded: 0,
      fake: true,
    });
    // Every question was asked as a plan asks: its text embedded as a query.
    const queries = gemini.embedRequests
      .filter((q) => q.taskType === "RETRIEVAL_QUERY")
      .flatMap((q) => q.texts);
    expect(queries.sort()).toEqual(RECALL_QUESTIONS.map((q) => q.question).sort());
    expect(r.hybridAt5).toBeGreaterThan(r.wordsAt5);
    expect(r.hybridAt5).toBeGreaterThanOrEqual(0.9);
    // "who got a pup?" shares no word with "kim's new dog is a beagle": only its meaning finds it.
    expect(r.verdicts.find((v) => v.id === "recall-pup")).toMatchObject({ words: false, hybrid: true });
    const text = recallText(r);
    expect(text).toContain(
      `recall@5 of 20 paraphrased questions among 320 memories: words ${Math.round(r.wordsAt5 * 100)} %, hybrid ${Math.round(r.hybridAt5 * 100)} %`,
    );
    expect(text).toContain(FAKE_VECTORS);
  }, 30_000);
});
