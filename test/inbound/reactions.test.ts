import { describe, expect, it } from "vitest";
import { createReactionHandler } from "../../src/inbound/reactions";
import { captureLogger } from "../support/log-capture";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { MessageStore } from "../../src/store/messages";
import { ReactionStore } from "../../src/store/reactions";
import { tempDbPath } from "../support/temp-dir";

function setup() {
  const db = openDatabase(tempDbPath());
  const messages = new MessageStore(db, "Mira");
  const reactions = new ReactionStore(db, "Mira");
  messages.insert({
    chatId: "-1005",
    messageId: 10,
    senderId: "1",
    senderName: "Mira",
    date: 0,
    text: "mine",
    isAgent: true,
  });
  messages.commit();
  const handle = createReactionHandler({ messages, reactions, logger: captureLogger().logger });
  const stored = () =>
    reactions
      .forMessage("-1005", 10)
      .map((r) => `${r.reactorId}:${r.emoji}`)
      .sort();
  return { db, messages, handle, stored };
}

const r = (reactorId: string, emoji: string, date = 1000) => ({ reactorId, emoji, date, isAgent: false });

describe("reactions to the persona's messages", () => {
  it("Telegram names only recent reactors: earlier ones the counts still cover are kept, the rest go", () => {
    const { db, handle, stored } = setup();
    handle({
      chatId: "-1005",
      messageId: 10,
      counts: new Map([
        ["👍", 2],
        ["🔥", 1],
      ]),
      reactors: [r("7", "🔥"), r("8", "👍"), r("9", "👍")],
    });
    // 3 👍 now, but only the newest two are named: 8 and 9 stay, 11 is new; 7's 🔥 is gone.
    handle({
      chatId: "-1005",
      messageId: 10,
      counts: new Map([["👍", 3]]),
      reactors: [r("11", "👍"), r("9", "👍")],
    });
    expect(stored()).toEqual(["11:👍", "8:👍", "9:👍"]);
    // One taken back: 2 👍, both named — 8 is no longer covered by the counts and goes.
    handle({
      chatId: "-1005",
      messageId: 10,
      counts: new Map([["👍", 2]]),
      reactors: [r("11", "👍"), r("9", "👍")],
    });
    expect(stored()).toEqual(["11:👍", "9:👍"]);
    closeDatabase(db);
  });

  it("a message that is not the persona's, or not stored at all, writes nothing", () => {
    const { db, messages, handle } = setup();
    // Someone else's message, stored in the same chat as the persona's.
    messages.insert({
      chatId: "-1005",
      messageId: 11,
      senderId: "7",
      senderName: "Ann",
      date: 0,
      text: "theirs",
      isAgent: false,
    });
    messages.commit();
    handle({ chatId: "-1005", messageId: 11, counts: new Map([["👍", 1]]), reactors: [r("8", "👍")] });
    // Not stored at all: a message id the store never saw, and a chat it never saw.
    handle({ chatId: "-1005", messageId: 12, counts: new Map([["👍", 1]]), reactors: [r("7", "👍")] });
    handle({ chatId: "-1009", messageId: 10, counts: new Map([["👍", 1]]), reactors: [r("7", "👍")] });
    expect(db.prepare("SELECT count(*) FROM reactions").pluck().get()).toBe(0);
    closeDatabase(db);
  });
});
