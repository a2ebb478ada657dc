import { describe, expect, it } from "vitest";
import type { StoredMessage } from "../../src/store/messages";
import { idsToInject, MAX_INJECTED, selectWindow, WINDOW_ITEMS, type PersonaIdentity } from "../../src/context/window";

const SELF = "500";
const persona: PersonaIdentity = { selfId: SELF, username: "mira_ai", mentionsName: (t) => /\bmira\b/i.test(t) };

function m(id: number, extra: Partial<StoredMessage> = {}): StoredMessage {
  return { chatId: "-1001", messageId: id, senderId: "7", senderName: "Ann", date: id * 1000, text: `chatter ${id}`, isAgent: false, ...extra };
}
const mine = (id: number, extra: Partial<StoredMessage> = {}) => m(id, { isAgent: true, senderId: SELF, text: `my answer ${id}`, ...extra });
const ids = (ms: readonly StoredMessage[]) => ms.map((x) => x.messageId);

describe("the recent window", () => {
  it("talkative and private chats keep every message of the lane, the newest 16, targets apart", () => {
    const lane = Array.from({ length: 30 }, (_, i) => m(i + 1));
    const w = selectWindow({ lane, targetIds: [30], mode: "talkative", isDm: false, persona });
    expect(ids(w.messages)).toEqual(Array.from({ length: WINDOW_ITEMS.talkative }, (_, i) => i + 14));
    expect(ids(selectWindow({ lane, targetIds: [30], mode: "strict", isDm: true, persona }).messages)).toHaveLength(16);
  });

  it("strict keeps what involved the persona (its messages, mentions, replies to it) with their parents and replies", () => {
    const lane = [
      m(1),
      m(2, { text: "@mira_ai what's the plan?", mentions: [{ type: "mention", offset: 0, length: 8 }] }),
      mine(3, { replyToId: 2 }),
      m(4),
      m(5, { replyToId: 3, text: "ok" }), // replies to the persona
      m(6, { replyToId: 5, text: "and?" }), // a reply to an involved message
      m(7, { text: "Mira, you there?" }), // named
      m(8, { text: "hey", mentions: [{ type: "mentionname", offset: 0, length: 3, userId: SELF }] }), // text mention
      m(9),
      m(10, { text: "@mira_ai now", mentions: [{ type: "mention", offset: 0, length: 8 }] }),
    ];
    const w = selectWindow({ lane, targetIds: [10], mode: "strict", isDm: false, persona });
    expect(ids(w.messages)).toEqual([2, 3, 5, 6, 7, 8]);
    // smart behaves like strict here; the newest 8 are kept.
    expect(ids(selectWindow({ lane, targetIds: [10], mode: "smart", isDm: false, persona, sizes: { talkative: 16, focused: 2 } }).messages)).toEqual([7, 8]);
    expect(ids(selectWindow({ lane, targetIds: [10], mode: "smart", isDm: false, persona, limit: 3 }).messages)).toEqual([6, 7, 8]);
    // A reply lane's root is kept even when nothing involved the persona there.
    expect(ids(selectWindow({ lane: [m(1), m(4, { replyToId: 1 })], targetIds: [4], mode: "strict", isDm: false, persona, alwaysKeep: [1] }).messages)).toEqual([1]);
  });

  it("the focus anchor is the last target's reply target, else the persona's last message before it", () => {
    const lane = [m(1), mine(2), m(3), mine(4), m(5), m(6, { replyToId: 1 })];
    expect(selectWindow({ lane, targetIds: [6], mode: "talkative", isDm: false, persona }).anchorId).toBe(1);
    expect(selectWindow({ lane, targetIds: [5], mode: "talkative", isDm: false, persona }).anchorId).toBe(4);
    expect(selectWindow({ lane: [m(1), m(2)], targetIds: [2], mode: "talkative", isDm: false, persona }).anchorId).toBeUndefined();
  });

  it("injects a replied-to message or the anchor only when out of view, each once, at most 4", () => {
    const lane = Array.from({ length: 40 }, (_, i) => m(i + 1));
    const targets = [m(40, { replyToId: 2 }), m(39, { replyToId: 2 })];
    const w = selectWindow({ lane, targetIds: [39, 40], mode: "talkative", isDm: false, persona });
    expect(idsToInject(w, targets)).toEqual([2]);
    const inside = [m(40, { replyToId: 35 })];
    expect(idsToInject(selectWindow({ lane, targetIds: [40], mode: "talkative", isDm: false, persona }), inside)).toEqual([]);
    // A reply to another target is in view too.
    expect(idsToInject(selectWindow({ lane, targetIds: [39, 40], mode: "talkative", isDm: false, persona }), [m(39), m(40, { replyToId: 39 })])).toEqual([]);
    const many = [1, 2, 3, 4, 5, 6].map((r, i) => m(41 + i, { replyToId: r }));
    const wm = selectWindow({ lane: [...lane, ...many], targetIds: many.map((t) => t.messageId), mode: "talkative", isDm: false, persona });
    expect(idsToInject(wm, many)).toHaveLength(MAX_INJECTED);
  });
});
