import { describe, expect, it } from "vitest";
import { estimateTokens } from "../../src/context/tokens";

describe("estimateTokens", () => {
  it("counts English at about four characters per token", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("see you at the station at five")).toBe(8); // 30 chars
  });
  it("counts Cyrillic denser than Latin, and CJK and emoji densest", () => {
    const latin = estimateTokens("privet kak dela");
    const cyr = estimateTokens("привет как дела");
    const cjk = estimateTokens("你好你好你好你好你好你好你好");
    expect(cyr).toBeGreaterThan(latin);
    expect(cjk).toBe(14); // 14 ideographs
    expect(estimateTokens("👍👍")).toBe(2);
  });
});
