import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  LaneKeyError,
  laneKey,
  parseLaneKey,
  readLane,
  roomOf,
  threadOf,
  type Lane,
} from "../../src/context/lanes";
import { openDatabase } from "../../src/store/db";
import { MessageStore, type StoredMessage } from "../../src/store/messages";
import { migrations } from "../../src/store/migrations";
import { tempDbPath } from "../support/temp-dir";

const GROUP = "-1001234";
const DM = "42";

function msg(chatId: string, messageId: number, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    chatId,
    messageId,
    senderId: "7",
    senderName: "Ann",
    date: messageId * 1000,
    text: `m${messageId}`,
    isAgent: false,
    ...extra,
  };
}

function store() {
  const db = openDatabase(tempDbPath());
  return { db, messages: new MessageStore(db, "A") };
}

const ids = (ms: readonly StoredMessage[]) => ms.map((m) => m.messageId);
/** A message's thread in a group, else its room. */
const laneOf = (m: StoredMessage): Lane => threadOf(m) ?? roomOf(m);

describe("rooms and reply threads", () => {
  it("a reply joins the lane of its chain's root, however deep the chain", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 1));
    messages.insert(msg(GROUP, 2, { replyToId: 1 }));
    messages.insert(msg(GROUP, 3, { replyToId: 2 }));
    messages.insert(msg(GROUP, 4, { replyToId: 3 }));
    expect(messages.get(GROUP, 4)!.threadRoot).toBe(1);
    expect(laneKey(laneOf(messages.get(GROUP, 4)!))).toBe(`reply:${GROUP}:1`);
    expect(laneKey(laneOf(messages.get(GROUP, 1)!))).toBe(`root:${GROUP}`);
  });

  it("two interleaved reply threads are read apart; the room holds every message, replies included", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 10)); // thread A opens
    messages.insert(msg(GROUP, 11)); // thread B opens
    messages.insert(msg(GROUP, 12, { replyToId: 10 }));
    messages.insert(msg(GROUP, 13, { replyToId: 11 }));
    messages.insert(msg(GROUP, 14, { replyToId: 12 }));
    messages.insert(msg(GROUP, 15, { replyToId: 13 }));
    messages.insert(msg(GROUP, 16));
    const a = laneOf(messages.get(GROUP, 14)!);
    const b = laneOf(messages.get(GROUP, 15)!);
    expect(ids(readLane(messages, a, { limit: 50 }))).toEqual([10, 12, 14]);
    expect(ids(readLane(messages, b, { limit: 50 }))).toEqual([11, 13, 15]);
    expect(ids(readLane(messages, { kind: "root", chatId: GROUP }, { limit: 50 }))).toEqual([
      10, 11, 12, 13, 14, 15, 16,
    ]);
    expect(roomOf(messages.get(GROUP, 14)!)).toEqual({ kind: "root", chatId: GROUP });

    // Bounded: the newest `limit`, up to `uptoId`, above `afterId`.
    expect(ids(readLane(messages, a, { limit: 2 }))).toEqual([12, 14]);
    expect(ids(readLane(messages, a, { limit: 50, uptoId: 12 }))).toEqual([10, 12]);
    expect(ids(readLane(messages, a, { limit: 50, afterId: 10 }))).toEqual([12, 14]);
  });

  it("the messages right after one, in its room: what followed it in the conversation", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 1, { text: "@mira_ai hi" }));
    messages.insert(msg(GROUP, 2, { replyToId: 1, isAgent: true, senderId: "500", text: "hi!" }));
    messages.insert(msg(GROUP, 3, { replyToId: 2 }));
    messages.insert(msg(GROUP, 4, { text: "@mira_ai another thing" }));
    messages.markDeleted(GROUP, [3]);
    expect(ids(messages.laneAfter(GROUP, { kind: "all" }, 1, { limit: 2, scan: 10 }))).toEqual([2, 4]);
    expect(ids(readLane(messages, { kind: "reply", chatId: GROUP, rootId: 1 }, { limit: 50 }))).toEqual([
      1, 2,
    ]);
    expect(messages.othersWroteAfter(GROUP, 2)).toBe(true);
    expect(messages.othersWroteAfter(GROUP, 4)).toBe(false);
  });

  it("in a forum, only the message's topic counts for who wrote after it", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 1, { topicId: 5, text: "@mira_ai which train?" }));
    messages.insert(msg(GROUP, 2, { topicId: 9, senderId: "8" })); // another topic
    messages.insert(msg(GROUP, 3, { topicId: 5, isAgent: true, senderId: "500" })); // the persona's own
    expect(messages.othersWroteAfter(GROUP, 1)).toBe(false);
    messages.insert(msg(GROUP, 4, { topicId: 5, senderId: "8" }));
    expect(messages.othersWroteAfter(GROUP, 1)).toBe(true);
    expect(messages.othersWroteAfter(GROUP, 2)).toBe(false);
  });

  it("a parent that is not stored becomes the root; a reply to a stored reply inherits its root", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 50, { replyToId: 5 })); // 5 is older than anything stored
    messages.insert(msg(GROUP, 51, { replyToId: 50 }));
    expect(messages.get(GROUP, 50)!.threadRoot).toBe(5);
    expect(messages.get(GROUP, 51)!.threadRoot).toBe(5);
  });

  it("a forum topic is one room, replies inside it included (no reply threads in topics)", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 100, { topicId: 7 }));
    messages.insert(msg(GROUP, 101, { topicId: 9 }));
    messages.insert(msg(GROUP, 102, { topicId: 7, replyToId: 100 }));
    const lane = laneOf(messages.get(GROUP, 102)!);
    expect(threadOf(messages.get(GROUP, 102)!)).toBeUndefined();
    expect(laneKey(lane)).toBe(`topic:${GROUP}:7`);
    expect(ids(readLane(messages, lane, { limit: 50 }))).toEqual([100, 102]);
  });

  it("a private chat is one room, replies and all", () => {
    const { messages } = store();
    messages.insert(msg(DM, 1));
    messages.insert(msg(DM, 2));
    messages.insert(msg(DM, 3, { replyToId: 1 }));
    const lane = laneOf(messages.get(DM, 3)!);
    expect(laneKey(lane)).toBe(`root:${DM}`);
    expect(ids(readLane(messages, lane, { limit: 50 }))).toEqual([1, 2, 3]);
  });

  it("reads only the chat's newest `scan` messages: a lane quiet for longer comes back short", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 1));
    messages.insert(msg(GROUP, 2, { replyToId: 1 }));
    for (let i = 3; i < 20; i++) messages.insert(msg(GROUP, i));
    const lane = laneOf(messages.get(GROUP, 2)!);
    expect(ids(readLane(messages, lane, { limit: 5, scan: 10 }))).toEqual([]);
    expect(ids(readLane(messages, lane, { limit: 5, scan: 19 }))).toEqual([1, 2]);
  });

  it("deleted messages are left out of a lane", () => {
    const { messages } = store();
    messages.insert(msg(GROUP, 1));
    messages.insert(msg(GROUP, 2, { replyToId: 1 }));
    messages.insert(msg(GROUP, 3, { replyToId: 2 }));
    messages.markDeleted(GROUP, [2]);
    expect(ids(readLane(messages, { kind: "reply", chatId: GROUP, rootId: 1 }, { limit: 10 }))).toEqual([
      1, 3,
    ]);
  });

  it("lane keys round-trip; a malformed key is an error that quotes it", () => {
    for (const key of [`topic:${GROUP}:7`, `reply:${GROUP}:10`, `root:${GROUP}`, `root:${DM}`])
      expect(laneKey(parseLaneKey(key))).toBe(key);
    expect(() => parseLaneKey("reply:abc")).toThrow(LaneKeyError);
    expect(() => parseLaneKey("reply:abc")).toThrow(/"reply:abc"/);
  });

  it("the migration gives replies stored before it their chain's root", () => {
    const path = tempDbPath();
    // A database at the schema before thread roots, holding a chain stored the old way.
    const db = new Database(path);
    const before = migrations.findIndex((m) => m.includes("ADD COLUMN thread_root"));
    for (const m of migrations.slice(0, before)) db.exec(m);
    db.pragma(`user_version = ${before}`);
    const ins = db.prepare(
      `INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, reply_to_id) VALUES ('A', ?, ?, '7', 'Ann', 0, 't', ?)`,
    );
    ins.run(GROUP, 1, null);
    for (let i = 2; i <= 40; i++) ins.run(GROUP, i, i - 1);
    ins.run(GROUP, 41, 99); // parent never stored
    db.close();
    const messages = new MessageStore(openDatabase(path), "A");
    expect(messages.get(GROUP, 1)!.threadRoot).toBeUndefined();
    expect(messages.get(GROUP, 2)!.threadRoot).toBe(1);
    expect(messages.get(GROUP, 40)!.threadRoot).toBe(1);
    expect(messages.get(GROUP, 41)!.threadRoot).toBe(99);
  });
});
