import pino from "pino";
import { describe, expect, it } from "vitest";
import { compileAddressMatcher } from "../../src/inbound/addressing";
import { createInboundPipeline } from "../../src/inbound/pipeline";
import { openDatabase } from "../../src/store/db";
import { MessageStore } from "../../src/store/messages";
import { ChatStore } from "../../src/store/chats";
import type { InboundMessage, ReplyContext } from "../../src/base/types";
import { tempDbPath } from "../support/temp-dir";

function setup() {
  const db = openDatabase(tempDbPath());
  const messages = new MessageStore(db, "Mira");
  const enqueued: {
    chatId: string;
    messageId: number;
    awaitingReply: boolean;
    senderId: string;
    topicId?: number;
  }[] = [];
  const attached: { messageId: number; reply: ReplyContext }[] = [];
  let fetches = 0;
  const handle = createInboundPipeline({
    messages,
    chats: new ChatStore(db, "Mira"),
    names: compileAddressMatcher(["Mira"]),
    logger: pino({ level: "silent" }),
    enqueue: (chatId, messageId, o) => enqueued.push({ chatId, messageId, ...o }),
    attachReply: (_chatId, messageId, reply) => attached.push({ messageId, reply }),
    now: () => base.date + 60_000,
  });
  const fetchReply = async () => {
    fetches++;
    return { kind: "deleted" as const, id: 1 };
  };
  return {
    db,
    messages,
    enqueued,
    attached,
    handle: (m: InboundMessage) => handle(m, fetchReply),
    fetches: () => fetches,
  };
}

const base: InboundMessage = {
  chatId: "-1001",
  chatType: "supergroup",
  messageId: 10,
  senderId: "42",
  senderName: "Alice",
  date: 1_700_000_000_000,
  text: "hello Mira",
  entities: [],
  mentioned: false,
  out: false,
  senderIsBot: false,
};

describe("inbound pipeline", () => {
  it("skips bots, the service account and the account's own messages without storing them", async () => {
    const s = setup();
    expect(await s.handle({ ...base, senderIsBot: true })).toBe("skipped-bot");
    expect(await s.handle({ ...base, senderId: "777000", chatType: "dm", chatId: "777000" })).toBe(
      "skipped-service",
    );
    expect(await s.handle({ ...base, out: true })).toBe("skipped-own");
    expect(s.db.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(0);
    expect(s.enqueued).toEqual([]);
  });

  it("stores a duplicate delivery once and answers it once", async () => {
    const s = setup();
    expect(await s.handle(base)).toBe("addressed");
    expect(await s.handle(base)).toBe("duplicate");
    expect(s.enqueued).toHaveLength(1);
  });

  it("keys messages by chat too: the same id in two supergroups is two messages", async () => {
    const s = setup();
    await s.handle({ ...base, text: "in one" });
    await s.handle({ ...base, chatId: "-1002", text: "in two" });
    expect(s.messages.get("-1001", 10)?.text).toBe("in one");
    expect(s.messages.get("-1002", 10)?.text).toBe("in two");
  });

  it("fetches the reply target only for addressed messages, and keeps its context for planning", async () => {
    const s = setup();
    await s.handle({ ...base, messageId: 11, text: "just chatting", replyToId: 5 });
    expect(s.fetches()).toBe(0);
    await s.handle({ ...base, messageId: 12, text: "Mira?", replyToId: 5 });
    expect(s.fetches()).toBe(1);
    // The task exists before the fetch (so a crash cannot lose the message) and waits for it.
    expect(s.enqueued).toEqual([{ chatId: "-1001", messageId: 12, awaitingReply: true, senderId: "42" }]);
    expect(s.attached).toEqual([{ messageId: 12, reply: { kind: "deleted", id: 1 } }]);
  });

  it("makes an addressed message durable before the reply fetch, even if the process dies then", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const messages = new MessageStore(db, "Mira");
    const handle = createInboundPipeline({
      messages,
      chats: new ChatStore(db, "Mira"),
      names: compileAddressMatcher(["Mira"]),
      logger: pino({ level: "silent" }),
      enqueue: () => {},
      attachReply: () => {},
      now: () => base.date,
    });
    let fetching = false;
    void handle({ ...base, replyToId: 3 }, () => {
      fetching = true;
      return new Promise(() => {}); // the reply fetch never returns: the process is killed here
    });
    expect(fetching).toBe(true);
    db.close(); // a crash: whatever was not committed is gone
    const again = new MessageStore(openDatabase(path), "Mira");
    expect(again.get("-1001", 10)?.text).toBe("hello Mira");
  });
});
