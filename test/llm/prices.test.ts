import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/config/config-error";
import { DEFAULT_PRICES, estimateCost, loadPriceTable, priceFor } from "../../src/llm/prices";
import { tempDir } from "../support/temp-dir";

describe("price table", () => {
  it("prices a model exactly, or by the longest dated/preview prefix, and thinking as output", () => {
    expect(priceFor(DEFAULT_PRICES, "gemini-2.5-flash")).toEqual({ input: 0.3, output: 2.5 });
    expect(priceFor(DEFAULT_PRICES, "gemini-2.5-flash-preview-09-2025")).toEqual({ input: 0.3, output: 2.5 });
    expect(priceFor(DEFAULT_PRICES, "models/gemini-2.5-flash-lite")).toEqual({ input: 0.1, output: 0.4 });
    expect(priceFor(DEFAULT_PRICES, "gemini-2.5-flashy")).toBeUndefined();
    expect(
      estimateCost(DEFAULT_PRICES, "gemini-2.5-flash", {
        promptTokens: 1_000_000,
        outputTokens: 500_000,
        thinkingTokens: 500_000,
      }),
    ).toBeCloseTo(0.3 + 2.5, 12);
    expect(
      estimateCost(DEFAULT_PRICES, "llama", { promptTokens: 1, outputTokens: 1, thinkingTokens: 0 }),
    ).toBeUndefined();
  });

  it("reads an override file on top of the built-in table", () => {
    const file = join(tempDir(), "prices.json");
    writeFileSync(
      file,
      JSON.stringify({ "gemini-2.5-flash": { input: 0.5, output: 3 }, "my-model": { input: 1, output: 2 } }),
    );
    const t = loadPriceTable(file);
    expect(t["gemini-2.5-flash"]).toEqual({ input: 0.5, output: 3 });
    expect(t["my-model"]).toEqual({ input: 1, output: 2 });
    expect(t["gemini-2.5-pro"]).toEqual(DEFAULT_PRICES["gemini-2.5-pro"]);
    expect(loadPriceTable(undefined)).toBe(DEFAULT_PRICES);
  });

  it("rejects a missing file, bad JSON and a wrong shape with the variable, the file and the problem", () => {
    const dir = tempDir();
    const bad = (content: string) => {
      const f = join(dir, `p${Math.random()}.json`);
      writeFileSync(f, content);
      return f;
    };
    expect(() => loadPriceTable(join(dir, "none.json"))).toThrow(
      /LLM_PRICES: cannot read .*none\.json \(ENOENT\)/,
    );
    expect(() => loadPriceTable(bad("{oops"))).toThrow(ConfigError);
    expect(() => loadPriceTable(bad("{oops"))).toThrow(/is not valid JSON/);
    expect(() => loadPriceTable(bad('{"m": {"input": -1, "output": 2}}'))).toThrow(/m\.input/);
    expect(() => loadPriceTable(bad('{"m": {"input": 1}}'))).toThrow(/m\.output/);
    expect(() => loadPriceTable(bad('{"m": {"input": 1, "output": 2, "cache": 0.1}}'))).toThrow(/m: .*cache/);
    expect(loadPriceTable(bad('{"m": {"input": 1, "output": 2, "cached": 0.1}}'))["m"]).toEqual({
      input: 1,
      output: 2,
      cached: 0.1,
    });
  });
});
