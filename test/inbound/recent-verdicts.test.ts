import { describe, expect, it } from "vitest";
import { RecentVerdicts } from "../../src/inbound/recent-verdicts";

describe("recent chatter verdicts (memory only, for the console)", () => {
  it("keeps the newest 5,000 and forgets the oldest beyond them", () => {
    const v = new RecentVerdicts();
    for (let i = 1; i <= 5_001; i++) v.note("-100", i, i % 2 ? "not-near" : "reply");
    expect(v.get("-100", 1)).toBeUndefined();
    expect(v.get("-100", 2)).toBe("reply");
    expect(v.get("-100", 5_001)).toBe("not-near");
    expect(v.get("-200", 5_001)).toBeUndefined();
  });
});
