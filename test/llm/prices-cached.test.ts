import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES, estimateCost } from "../../src/llm/prices";

describe("cached prompt tokens", () => {
  it("are billed at the table's cached rate, the rest of the prompt at the input rate", () => {
    const table = { m: { input: 1, output: 4, cached: 0.25 } };
    expect(
      estimateCost(table, "m", {
        promptTokens: 1_000_000,
        cachedTokens: 600_000,
        outputTokens: 100_000,
        thinkingTokens: 50_000,
      }),
    ).toBeCloseTo(0.4 * 1 + 0.6 * 0.25 + 0.15 * 4, 12);
  });

  it("cost a tenth of the input price when the table names no cached price (gemini-2.5-flash: 0.3 → 0.03)", () => {
    const t = { promptTokens: 2_000_000, cachedTokens: 1_000_000, outputTokens: 0, thinkingTokens: 0 };
    expect(estimateCost(DEFAULT_PRICES, "gemini-2.5-flash", t)).toBeCloseTo(0.3 + 0.03, 12);
    // Without cached tokens the whole prompt is at the input rate.
    expect(estimateCost(DEFAULT_PRICES, "gemini-2.5-flash", { ...t, cachedTokens: 0 })).toBeCloseTo(0.6, 12);
  });

  it("never count for more than the prompt they are part of", () => {
    const table = { m: { input: 1, output: 0, cached: 0 } };
    expect(
      estimateCost(table, "m", {
        promptTokens: 1000,
        cachedTokens: 5000,
        outputTokens: 0,
        thinkingTokens: 0,
      }),
    ).toBe(0);
  });
});
