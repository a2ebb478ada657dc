import { describe, expect, it } from "vitest";
import { contentWords, isNearDuplicate } from "../../src/base/word-similarity";

const dup = (a: string, b: string) => isNearDuplicate(contentWords(a), contentWords(b));

describe("near-duplicate memories", () => {
  it("treats rewordings and added detail as the same memory", () => {
    expect(dup("Alice likes green tea", "alice likes green tea!")).toBe(true);
    expect(dup("Alice likes green tea", "Alice really likes green tea")).toBe(true);
    expect(
      dup("Alice's sister works as a nurse in Lyon", "Alice's sister now works as a nurse in Lyon"),
    ).toBe(true);
    expect(dup("Bob has a dog", "Bob has a dog called Rex")).toBe(true);
    expect(dup("Алиса любит чай", "алиса любит чай.")).toBe(true);
  });

  it("keeps different facts apart, also short ones that share words", () => {
    expect(dup("Alice lives in Berlin", "Alice works in Munich")).toBe(false);
    expect(dup("Alice painted a bicycle in Porto", "Alice sold a bicycle in Porto")).toBe(false);
    expect(dup("is", "is")).toBe(false);
    expect(dup("Alice is vegetarian", "Alice eats no meat")).toBe(false);
  });
});
