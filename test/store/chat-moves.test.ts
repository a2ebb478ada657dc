import { describe, expect, it } from "vitest";
import { ChatMoves } from "../../src/store/chat-moves";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { IntentionStore } from "../../src/store/intentions";
import { tempDbPath } from "../support/temp-dir";

describe("chat moves (a basic group upgraded to a supergroup)", () => {
  it("records a move once, carries the old group's pending intentions over, and keeps it across a restart", () => {
    const path = tempDbPath();
    let db = openDatabase(path);
    const intentions = new IntentionStore(db, "Mira");
    const pending = intentions.add({
      chatId: "-42",
      note: "ask about the walk",
      dueAt: 5000,
      setAt: 1000,
      inReplyTo: 7,
    });
    intentions.add({ chatId: "-43", note: "another group's", dueAt: 5000, setAt: 1000 });
    let moves = new ChatMoves(db, "Mira");
    expect(moves.record("-42", "-10077", 2000)).toBe(true);
    expect(moves.record("-42", "-10077", 2500)).toBe(false); // the second service message names the same move
    expect(moves.successor("-42")).toBe("-10077");
    expect(moves.predecessor("-10077")).toBe("-42");
    expect(moves.successor("-43")).toBeUndefined();
    const moved = intentions.openIn("-10077");
    expect(moved.map((i) => i.id)).toEqual([pending.id]);
    expect(moved[0]!.note).toBe("ask about the walk");
    expect(moved[0]!.inReplyTo).toBeUndefined(); // that message stays in the old chat
    expect(intentions.openIn("-42")).toEqual([]);
    expect(intentions.openIn("-43")).toHaveLength(1);
    closeDatabase(db);

    db = openDatabase(path);
    moves = new ChatMoves(db, "Mira");
    expect(moves.successor("-42")).toBe("-10077");
    expect(new ChatMoves(db, "Other").successor("-42")).toBeUndefined(); // per persona
    closeDatabase(db);
  });
});
