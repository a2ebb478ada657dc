import { describe, expect, it } from "vitest";
import { ChatStore } from "../../src/store/chats";
import { closeDatabase, commitPending, openDatabase } from "../../src/store/db";
import { tempDbPath } from "../support/temp-dir";

describe("chats table", () => {
  it("an update without a title never erases a stored group title", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const chats = new ChatStore(db, "Mira");
    chats.upsert({ chatId: "-5", chatType: "group", title: "Club" });
    chats.upsert({ chatId: "-5", chatType: "group" });
    closeDatabase(db);
    const db2 = openDatabase(path);
    const again = new ChatStore(db2, "Mira");
    expect(again.get("-5")?.title).toBe("Club");
    // A fresh process (empty cache) sees the untitled copy too.
    again.upsert({ chatId: "-5", chatType: "group" });
    commitPending(db2);
    expect(again.get("-5")?.title).toBe("Club");
  });
});
