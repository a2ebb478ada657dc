import { describe, expect, it } from "vitest";
import {
  CHATTER_COOLDOWN_MS,
  ChatActivity,
  NEAR_MESSAGES,
  NEAR_MS,
  prefilter,
  QUESTION_COOLDOWN_MS,
  type PrefilterContext,
} from "../../src/inbound/addressing-prefilter";
import type { InboundMessage } from "../../src/base/types";

const msg = (over: Partial<InboundMessage> = {}): InboundMessage => ({
  chatId: "-100",
  chatType: "supergroup",
  messageId: 10,
  senderId: "1",
  senderName: "Alice",
  date: 0,
  text: "hello there",
  entities: [],
  mentioned: false,
  out: false,
  senderIsBot: false,
  ...over,
});

const ctx = (over: Partial<PrefilterContext> = {}): PrefilterContext => ({
  selfId: "99",
  selfUsername: "mira_ai",
  siblings: new Set(["7"]),
  near: undefined,
  questionAllowed: () => true,
  ...over,
});

describe("prefilter", () => {
  it("skips what cannot be for the persona, each with its reason", () => {
    expect(prefilter(msg({ senderId: "7" }), ctx())).toEqual({ skip: "sibling" });
    expect(prefilter(msg({ text: "  " }), ctx())).toEqual({ skip: "no-text" });
    expect(prefilter(msg({ text: "[sticker 😀]" }), ctx())).toEqual({ skip: "no-text" });
    expect(prefilter(msg({ text: "/weather@weatherbot Berlin" }), ctx())).toEqual({ skip: "command" });
    expect(prefilter(msg({ text: "what do you think?", replyToId: 5 }), ctx())).toEqual({ skip: "reply" });
    expect(prefilter(msg({ text: "@bob what do you think?" }), ctx())).toEqual({ skip: "other-mention" });
    expect(
      prefilter(
        msg({
          text: "you there, what do you think?",
          entities: [{ type: "mentionname", offset: 0, length: 3, userId: "2" }],
        }),
        ctx(),
      ),
    ).toEqual({ skip: "other-mention" });
    expect(prefilter(msg({ text: "lol same" }), ctx())).toEqual({ skip: "not-near" });
    expect(prefilter(msg({ text: "ok?" }), ctx())).toEqual({ skip: "not-near" }); // too short for a question to the room
  });

  it("lets through questions to the room (one per cooldown) and the persona's partner going on with it", () => {
    expect(prefilter(msg({ text: "does anyone know when the release is?" }), ctx())).toEqual({
      candidate: "question",
    });
    expect(prefilter(msg({ text: "mail me at ab@bc.de, anyone know the release date?" }), ctx())).toEqual({
      candidate: "question",
    }); // an e-mail address is no mention
    expect(
      prefilter(
        msg({ text: "does anyone know when the release is?" }),
        ctx({ questionAllowed: () => false }),
      ),
    ).toEqual({ skip: "cooldown" });
    const near = { msSinceOwn: 30_000, othersSince: 1, fromPartner: true };
    expect(prefilter(msg({ text: "and tomorrow" }), ctx({ near }))).toEqual({ candidate: "follow-up" });
    expect(prefilter(msg({ text: "and tomorrow" }), ctx({ near: { ...near, fromPartner: false } }))).toEqual({
      skip: "not-near",
    });
    expect(prefilter(msg({ text: "and tomorrow" }), ctx({ near: { ...near, msSinceOwn: NEAR_MS } }))).toEqual(
      { skip: "not-near" },
    );
    expect(
      prefilter(msg({ text: "and tomorrow" }), ctx({ near: { ...near, othersSince: NEAR_MESSAGES + 1 } })),
    ).toEqual({ skip: "not-near" });
    expect(prefilter(msg({ text: "@mira_ai-less but @Mira_AI and tomorrow" }), ctx({ near }))).toEqual({
      candidate: "follow-up",
    });
  });
});

describe("prefilter in talkative mode (chatterAllowed given)", () => {
  it("lets ordinary chatter through while its cooldown allows; replies, commands, mentions of others and media stay skipped", () => {
    const talk = (allowed: boolean) => ctx({ chatterAllowed: () => allowed });
    expect(prefilter(msg({ text: "just finished Dune, what a book" }), talk(true))).toEqual({
      candidate: "chatter",
    });
    expect(prefilter(msg({ text: "just finished Dune, what a book" }), talk(false))).toEqual({
      skip: "cooldown",
    });
    expect(prefilter(msg({ text: "just finished Dune, what a book" }), ctx())).toEqual({ skip: "not-near" }); // smart
    // A room question past its own cooldown may still come in as chatter.
    expect(
      prefilter(
        msg({ text: "does anyone know when the release is?" }),
        ctx({ questionAllowed: () => false, chatterAllowed: () => true }),
      ),
    ).toEqual({ candidate: "chatter" });
    expect(prefilter(msg({ text: "does anyone know when the release is?" }), talk(true))).toEqual({
      candidate: "question",
    });
    expect(
      prefilter(
        msg({ text: "and tomorrow" }),
        ctx({ near: { msSinceOwn: 1000, othersSince: 1, fromPartner: true }, chatterAllowed: () => false }),
      ),
    ).toEqual({ candidate: "follow-up" });
    let asked = 0;
    const counting = ctx({ chatterAllowed: () => ++asked > 0 });
    expect(prefilter(msg({ text: "agreed", replyToId: 5 }), counting)).toEqual({ skip: "reply" });
    expect(prefilter(msg({ text: "/start" }), counting)).toEqual({ skip: "command" });
    expect(prefilter(msg({ text: "@bob look at this" }), counting)).toEqual({ skip: "other-mention" });
    expect(prefilter(msg({ text: "[photo]" }), counting)).toEqual({ skip: "no-text" });
    expect(prefilter(msg({ senderId: "7", text: "hello" }), counting)).toEqual({ skip: "sibling" });
    expect(asked).toBe(0); // the cooldown is spent only on chatter
  });
});

describe("ChatActivity", () => {
  it("follows the persona's partner after the persona spoke, counting others' messages", () => {
    const a = new ChatActivity();
    expect(a.other("c", "1", 0)).toBeUndefined(); // the persona has not spoken
    a.partner("c", "1");
    expect(a.other("c", "1", 0)).toBeUndefined();
    a.own("c", 1000);
    expect(a.other("c", "2", 2000)).toEqual({ msSinceOwn: 1000, othersSince: 1, fromPartner: false });
    expect(a.other("c", "1", 3000)).toEqual({ msSinceOwn: 2000, othersSince: 2, fromPartner: true });
    a.own("c", 4000);
    expect(a.other("c", "1", 5000)).toMatchObject({ othersSince: 1, fromPartner: true });
  });

  it("allows one room question per chat per cooldown", () => {
    const a = new ChatActivity();
    expect(a.question("c", 0)).toBe(true);
    expect(a.question("c", QUESTION_COOLDOWN_MS - 1)).toBe(false);
    expect(a.question("d", 1)).toBe(true);
    expect(a.question("c", QUESTION_COOLDOWN_MS)).toBe(true);
  });

  it("allows talkative chatter to start one burst per chat per chatter cooldown, apart from questions", () => {
    const a = new ChatActivity();
    expect(a.chatter("c", 0)).toBe(true);
    expect(a.question("c", 1)).toBe(true);
    expect(a.chatter("c", CHATTER_COOLDOWN_MS - 1)).toBe(false);
    expect(a.chatter("d", 1)).toBe(true);
    expect(a.chatter("c", CHATTER_COOLDOWN_MS)).toBe(true);
  });
});
