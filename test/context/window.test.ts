import { describe, expect, it } from "vitest";
import { WINDOW_ITEMS } from "../../src/config/persona";
import type { StoredMessage } from "../../src/store/messages";
import {
  MAX_REPLIED_CONTEXTS,
  recentStart,
  repliedToOutside,
  selectHistory,
  type HistoryInput,
  type PersonaIdentity,
} from "../../src/context/window";

const SELF = "500";
const persona: PersonaIdentity = {
  selfId: SELF,
  username: "mira_ai",
  mentionsName: (t) => /\bmira\b/i.test(t),
};

function m(id: number, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    chatId: "-1001",
    messageId: id,
    senderId: "7",
    senderName: "Ann",
    date: id * 1000,
    text: `chatter ${id}`,
    isAgent: false,
    ...extra,
  };
}
const mine = (id: number, extra: Partial<StoredMessage> = {}) =>
  m(id, { isAgent: true, senderId: SELF, text: `my answer ${id}`, ...extra });
const ids = (ms: readonly StoredMessage[]) => ms.map((x) => x.messageId);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** The history of `room` for these targets; by default as if a summary covered everything but the newest (so the room's part is the window's 16). */
function select(room: StoredMessage[], targetIds: number[], extra: Partial<HistoryInput> = {}) {
  const byId = new Map(room.map((x) => [x.messageId, x]));
  return selectHistory({
    room,
    targets: targetIds.map((id) => byId.get(id)!),
    isDm: false,
    persona,
    sizes: WINDOW_ITEMS,
    summarisedUpTo: 10_000,
    ...extra,
  });
}

describe("the room's part", () => {
  it("is the room's newest messages, every one, replies included, targets in place and not counted", () => {
    const room = range(1, 30).map((id) =>
      m(id, id % 3 === 0 ? { replyToId: id - 1, threadRoot: id - 1 } : {}),
    );
    const h = select(room, [30]);
    expect(ids(h.recent)).toEqual(range(14, 30)); // 16 others + the target
    expect(h.earlier).toEqual([]);
  });

  it("reaches back to the summary's last message, up to twice the window, so nothing falls between them", () => {
    const room = range(1, 60).map((id) => m(id));
    const targets = new Set([60]);
    expect(recentStart(room, targets, 16, 30)).toBe(31); // 29 unsummarised others: all shown
    expect(recentStart(room, targets, 16, 50)).toBe(44); // only 9 unsummarised: still the newest 16
    expect(recentStart(room, targets, 16, 5)).toBe(28); // 54 unsummarised: bounded at 32
    expect(recentStart(room, targets, 16, undefined)).toBe(28); // no summary: the same bound
  });

  it("counts what falls between summary and window (planning then has the summary written first); a lifted reach closes the gap", () => {
    const room = range(1, 60).map((id) => m(id));
    expect(select(room, [60], { summarisedUpTo: 30 }).unreached).toBe(0);
    expect(select(room, [60], { summarisedUpTo: 5 }).unreached).toBe(22); // 6..27: older than the 32 shown
    expect(select(room, [60], { summarisedUpTo: undefined }).unreached).toBe(27);
    const lifted = select(room, [60], { summarisedUpTo: 5, reach: Number.POSITIVE_INFINITY });
    expect(ids(lifted.recent)).toEqual(range(6, 60));
    expect(lifted.unreached).toBe(0);
  });
});

describe("earlier messages", () => {
  it("a reply thread older than the room's part comes along: root, the chain answered, then its newest, up to the thread window", () => {
    // Thread A (root 1) and thread B (root 2) interleaved; the room's newest 16 hold only 8 of A.
    const room: StoredMessage[] = [m(1), m(2)];
    for (let id = 3; id <= 42; id++) {
      const a = id % 2 === 1;
      room.push(m(id, { replyToId: id - 2, threadRoot: a ? 1 : 2 }));
    }
    const target = m(43, { replyToId: 41, threadRoot: 1, text: "@mira_ai what do you think?" });
    room.push(target);
    const thread = { rootId: 1, messages: room.filter((x) => x.messageId === 1 || x.threadRoot === 1) };
    const h = select(room, [43], { thread });
    expect(ids(h.recent)).toEqual(range(27, 43));
    expect(ids(h.earlier)).toEqual([1, 13, 15, 17, 19, 21, 23, 25]); // root + the 7 newest older ones of A
    const ofA = [...h.earlier, ...h.recent].filter((x) => x.messageId === 1 || x.threadRoot === 1);
    expect(ofA.length).toBeGreaterThanOrEqual(10);
  });

  it("the chain the target answers is taken first, even when other thread messages are newer", () => {
    const room: StoredMessage[] = [
      m(1),
      m(2, { replyToId: 1, threadRoot: 1 }),
      m(3, { replyToId: 2, threadRoot: 1 }),
    ];
    for (let id = 4; id <= 10; id++) room.push(m(id, { replyToId: 1, threadRoot: 1 })); // side replies to the root
    for (let id = 11; id <= 30; id++) room.push(m(id));
    room.push(m(31, { replyToId: 3, threadRoot: 1 }));
    const thread = { rootId: 1, messages: room.filter((x) => x.messageId === 1 || x.threadRoot === 1) };
    const h = select(room, [31], { thread, sizes: { ...WINDOW_ITEMS, thread: 4 } });
    expect(ids(h.earlier)).toEqual([1, 2, 3, 10]); // root, 3 and 2 (the chain), then the newest other
  });

  it("a replied-to message comes with what it answered and the flow after it", () => {
    const room = range(1, 40).map((id) => m(id));
    const target = m(41, { replyToId: 5, threadRoot: 5 });
    room.push(target);
    const around = new Map([[5, [m(3), m(4), m(5), m(6), m(7), m(8)]]]);
    const h = select(room, [41], { around });
    expect(ids(h.earlier)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(repliedToOutside([target], 25)).toEqual([5]);
    expect(repliedToOutside([target], 3)).toEqual([]); // inside the room's part: nothing to add
    const many = range(1, 5).map((r, i) => m(50 + i, { replyToId: r }));
    expect(repliedToOutside(many, 40)).toHaveLength(MAX_REPLIED_CONTEXTS);
  });

  it("groups keep older messages that involved the persona (its own, replies to it, mentions), up to the focused window; private chats do not", () => {
    const room: StoredMessage[] = [
      m(1, { text: "@mira_ai what's the plan?", mentions: [{ type: "mention", offset: 0, length: 8 }] }),
      mine(2, { replyToId: 1 }),
      m(3, { replyToId: 2, text: "ok" }),
      m(4),
      m(5, { text: "Mira, you there?" }),
    ];
    for (let id = 6; id <= 30; id++) room.push(m(id));
    expect(ids(select(room, [30]).earlier)).toEqual([1, 2, 3, 5]);
    expect(ids(select(room, [30], { sizes: { ...WINDOW_ITEMS, focused: 2 } }).earlier)).toEqual([3, 5]);
    expect(select(room, [30], { isDm: true }).earlier).toEqual([]);
  });

  it("a burst that began before the newest 16: everything from its first message on is the room's part, in order", () => {
    const room = range(1, 40).map((id) => m(id));
    const h = select(room, [3, 40]);
    expect(ids(h.recent)).toEqual(range(3, 40));
    expect(h.earlier).toEqual([]);
  });

  it("a target older than the room's read (read by id, apart) stays in view under earlier", () => {
    const room = [m(3), ...range(60, 80).map((id) => m(id))];
    const h = select(room, [3, 80], { readFrom: 60 });
    expect(ids(h.earlier)).toEqual([3]);
    expect(ids(h.recent)).toEqual(range(64, 80));
  });
});
