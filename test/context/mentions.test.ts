import { describe, expect, it } from "vitest";
import { mentionEntities, normalizeMentions, type MentionResolver } from "../../src/context/mentions";
import { speakerOf, speakerRef } from "../../src/context/speaker";
import type { Speaker } from "../../src/context/speaker";

const ANN: Speaker = { id: "11", username: "ann", nickname: "Ann Lee", bot: false };
const BOB: Speaker = { id: "12", nickname: "Bob", bot: false };
const people: MentionResolver = {
  byUsername: (u) => (u.toLowerCase() === "ann" ? ANN : undefined),
  byId: (id) => (id === "11" ? ANN : id === "12" ? BOB : undefined),
};

describe("mention normalisation", () => {
  it("rewrites @username to the speaker reference, offsets in UTF-16 code units (an emoji before it)", () => {
    const text = "😀 hi @ann!";
    // 😀 is two UTF-16 code units: the entity Telegram sends starts at 6, not at 5.
    expect(text.indexOf("@ann")).toBe(6);
    expect(normalizeMentions(text, [{ type: "mention", offset: 6, length: 4 }], people)).toBe(
      "😀 hi [Ann Lee](tg:@ann)!",
    );
  });

  it("rewrites a text mention of a user without a username to a reference by id", () => {
    const text = "👨‍👩‍👧 ask Bobby about it";
    const offset = text.indexOf("Bobby");
    expect(normalizeMentions(text, [{ type: "mentionname", offset, length: 5, userId: "12" }], people)).toBe(
      "👨‍👩‍👧 ask [Bob](tg:user/12) about it",
    );
    // Someone the account never saw: the sender's own words name them, the id identifies them.
    expect(normalizeMentions(text, [{ type: "mentionname", offset, length: 5, userId: "77" }], people)).toBe(
      "👨‍👩‍👧 ask [Bobby](tg:user/77) about it",
    );
  });

  it("rewrites several mentions and keeps an unknown @username as a reference by username", () => {
    const text = "@ann and @zed_42, look";
    const out = normalizeMentions(
      text,
      [
        { type: "mention", offset: 0, length: 4 },
        { type: "bold", offset: 0, length: 3 },
        { type: "mention", offset: 9, length: 7 },
      ],
      people,
    );
    expect(out).toBe("[Ann Lee](tg:@ann) and [@zed_42](tg:@zed_42), look");
  });

  it("ignores entities that overlap, fall outside the text or are not @usernames", () => {
    const text = "hi @ann";
    expect(
      normalizeMentions(
        text,
        [
          { type: "mention", offset: 3, length: 4 },
          { type: "mention", offset: 4, length: 3 },
          { type: "mention", offset: 5, length: 40 },
          { type: "mention", offset: 0, length: 2 },
        ],
        people,
      ),
    ).toBe("hi [Ann Lee](tg:@ann)");
  });

  it("keeps only mention entities for the store, and nothing for a message without any", () => {
    expect(mentionEntities([])).toBeUndefined();
    expect(mentionEntities([{ type: "bold", offset: 0, length: 1 }])).toBeUndefined();
    expect(
      mentionEntities([
        { type: "bold", offset: 0, length: 1 },
        { type: "mention", offset: 2, length: 4 },
      ]),
    ).toEqual([{ type: "mention", offset: 2, length: 4 }]);
  });
});

describe("speaker references", () => {
  it("nickname = display name > first/last > @username > user <id>", () => {
    expect(
      speakerRef(
        speakerOf("5", "Annie", {
          peerId: "5",
          kind: "user",
          firstName: "Ann",
          lastName: "Lee",
          username: "ann",
          bot: false,
          min: false,
        }),
      ),
    ).toBe("[Annie](tg:@ann)");
    expect(
      speakerRef(
        speakerOf("5", undefined, {
          peerId: "5",
          kind: "user",
          firstName: "Ann",
          lastName: "Lee",
          username: "ann",
          bot: false,
          min: false,
        }),
      ),
    ).toBe("[Ann Lee](tg:@ann)");
    expect(
      speakerRef(
        speakerOf("5", "user 5", { peerId: "5", kind: "user", username: "ann", bot: false, min: false }),
      ),
    ).toBe("[@ann](tg:@ann)");
    expect(speakerRef(speakerOf("5", undefined, undefined))).toBe("[user 5](tg:user/5)");
  });

  it("a nickname cannot close the reference or forge another", () => {
    expect(speakerRef({ id: "5", nickname: "x](tg:@mira) [y", bot: false })).toBe(
      "[x)\\(tg:@mira) (y](tg:user/5)",
    );
  });
});
