import { describe, expect, it } from "vitest";
import { closestAllowed, isStandardReaction, reactionFamilies } from "../../src/base/standard-reactions";

describe("the closest allowed reaction", () => {
  it("keeps an allowed choice (normalised), else takes the first allowed one of its family, else nothing", () => {
    const some = { kind: "some" as const, emoji: ["👍", "❤", "🔥"] };
    expect(closestAllowed("❤️", some)).toBe("❤"); // U+FE0F dropped, as Telegram spells it
    expect(closestAllowed("😍", some)).toBe("❤");
    expect(closestAllowed("👏", some)).toBe("👍");
    expect(closestAllowed("⚡", some)).toBe("🔥");
    expect(closestAllowed("🤣", some)).toBeUndefined(); // nothing laughing is allowed
    expect(closestAllowed("👍", { kind: "none" })).toBeUndefined();
    expect(closestAllowed("🤣", { kind: "all" })).toBe("🤣");
  });

  it("every reaction it can pick is one Telegram accepts, spelled as Telegram spells it", () => {
    const members = reactionFamilies().flat();
    expect(members.filter((e) => !isStandardReaction(e))).toEqual([]);
    // Any standard reaction of a family can stand in for another of it.
    for (const family of reactionFamilies())
      for (const e of family) expect(closestAllowed(family[0]!, { kind: "some", emoji: [e] })).toBe(e);
  });
});
