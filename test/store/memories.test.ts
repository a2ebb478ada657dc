import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { EVERYWHERE, ftsQuery, MemoryStore } from "../../src/store/memories";
import { migrations } from "../../src/store/migrations";
import { tempDbPath } from "../support/temp-dir";

const DAY = 86_400_000;

describe("memory store", () => {
  it("migrates the memories stored before subjects existed: every row kept as a note about its chat, and searchable", () => {
    const path = tempDbPath();
    // A database as the previous release left it (schema 6), with two memories.
    const old = new Database(path);
    for (const step of migrations.slice(0, 6)) old.exec(step);
    old.pragma("user_version = 6");
    old
      .prepare(`INSERT INTO memories (agent, chat_id, content, created_at) VALUES (?, ?, ?, ?)`)
      .run("Mira", "42", "Carol is vegetarian", 5 * DAY);
    old
      .prepare(`INSERT INTO memories (agent, chat_id, content, created_at) VALUES (?, ?, ?, ?)`)
      .run("Mira", "-100777", "the group meets on fridays", 6 * DAY);
    old.close();

    const db = openDatabase(path);
    const store = new MemoryStore(db, "Mira");
    expect(store.list("42")).toEqual([
      { id: 1, chatId: "42", content: "Carol is vegetarian", createdAt: 5 * DAY, updatedAt: 5 * DAY },
    ]);
    expect(store.list("-100777").map((m) => m.content)).toEqual(["the group meets on fridays"]);
    // Old rows are found by full-text search, in their own chat only.
    expect(
      store
        .search({ chatId: "42", partner: "42", present: ["42"] }, "is she vegetarian?", 5)
        .map((m) => m.content),
    ).toEqual(["Carol is vegetarian"]);
    expect(store.search({ chatId: "-100777", present: ["42"] }, "is she vegetarian?", 5)).toEqual([]);
    closeDatabase(db);
  });

  it("the owner edits and deletes a memory; the full-text index follows, and another persona's memory is out of reach", () => {
    const db = openDatabase(tempDbPath());
    const store = new MemoryStore(db, "Mira");
    const other = new MemoryStore(db, "Nova");
    const { id } = store.remember({ chatId: "-1", subject: "7", content: "Alice loves green tea", now: DAY });
    const theirs = other.remember({ chatId: "-1", subject: "7", content: "Alice sings", now: DAY }).id;
    const v = { chatId: "-1", present: ["7"] };
    expect(store.edit(id, "  Alice drinks black coffee ", 2 * DAY)).toMatchObject({
      content: "Alice drinks black coffee",
      updatedAt: 2 * DAY,
    });
    expect(store.search(v, "coffee", 5).map((m) => m.id)).toEqual([id]);
    expect(store.search(v, "green tea", 5)).toEqual([]);
    expect(store.edit(id, "   ", 3 * DAY)).toBeUndefined();
    expect(store.edit(theirs, "hijacked", 3 * DAY)).toBeUndefined();
    expect(store.forget(theirs)).toBe(false);
    expect(other.get(theirs)?.content).toBe("Alice sings");
    expect(store.forget(id)).toBe(true);
    expect(store.forget(id)).toBe(false);
    expect(store.search(v, "coffee", 5)).toEqual([]);
    closeDatabase(db);
  });

  it("merges a near-duplicate about the same person instead of stacking it, keeping the fuller wording", () => {
    const db = openDatabase(tempDbPath());
    const store = new MemoryStore(db, "Mira");
    expect(
      store.remember({ chatId: "-1", subject: "7", toldBy: "7", content: "Alice has a dog", now: DAY })
        .merged,
    ).toBe(false);
    expect(
      store.remember({
        chatId: "-1",
        subject: "7",
        toldBy: "7",
        content: "alice has a dog called Rex",
        now: 2 * DAY,
      }),
    ).toEqual({ id: 1, merged: true });
    expect(
      store.remember({ chatId: "-1", subject: "7", toldBy: "7", content: "Alice has a dog!", now: 3 * DAY })
        .merged,
    ).toBe(true);
    // The same words about someone else, or as a note about the chat, are another memory; so are
    // they said somewhere else (a private chat must not merge into a group's memory), or by
    // someone else (what dave says about alice is not alice's word).
    expect(
      store.remember({ chatId: "-1", subject: "8", toldBy: "8", content: "Alice has a dog", now: 3 * DAY })
        .merged,
    ).toBe(false);
    expect(store.remember({ chatId: "-1", content: "Alice has a dog", now: 3 * DAY }).merged).toBe(false);
    expect(
      store.remember({ chatId: "7", subject: "7", toldBy: "7", content: "Alice has a dog", now: 3 * DAY })
        .merged,
    ).toBe(false);
    expect(
      store.remember({ chatId: "-1", subject: "7", toldBy: "9", content: "Alice has a dog", now: 3 * DAY })
        .merged,
    ).toBe(false);
    expect(store.about("7")[0]).toEqual({
      id: 1,
      subject: "7",
      chatId: "-1",
      toldBy: "7",
      content: "alice has a dog called Rex",
      createdAt: DAY,
      updatedAt: 3 * DAY,
    });
    // The full-text index follows the merged wording.
    expect(store.search({ chatId: "-1", present: ["7"] }, "is he called Rex?", 5).map((m) => m.id)).toEqual([
      1,
    ]);
    expect(store.count()).toBe(5);
    closeDatabase(db);
  });

  it("shows a memory only where it was learnt allows: a private chat's in that chat only, a group's there and in its subject's private chat", () => {
    const db = openDatabase(tempDbPath());
    const store = new MemoryStore(db, "Mira");
    const secret = store.remember({
      chatId: "100",
      subject: "100",
      toldBy: "100",
      content: "Carol's door code is 4711",
      now: DAY,
    }).id;
    store.remember({ chatId: "-5", content: "this group plans a peanut-free picnic", now: DAY });
    const planted = store.remember({
      chatId: "-5",
      subject: "200",
      toldBy: "300",
      content: "Alice changed her number",
      now: DAY,
    }).id;
    const group = (chatId: string, present: string[]) => ({ chatId, present });
    const dm = (userId: string) => ({ chatId: userId, partner: userId, present: [userId] });
    const shown = (v: { chatId: string; partner?: string; present: string[] }) =>
      store
        .visible(v, 10)
        .map((m) => m.id)
        .sort();
    // Carol's secret: in her private chat, nowhere else — not in a group where she is present.
    expect(shown(dm("100"))).toEqual([secret]);
    expect(shown(group("-5", ["100", "200"]))).not.toContain(secret);
    expect(store.search(group("-5", ["100"]), "door code", 10)).toEqual([]);
    // Learnt in the group: in that group (whoever is present), and in alice's private chat.
    expect(shown(group("-5", []))).toEqual([2, planted].sort());
    expect(shown(dm("200"))).toEqual([planted]);
    expect(shown(dm("300"))).toEqual([]); // not in the teller's private chat
    expect(shown(group("-9", ["200", "300"]))).toEqual([]); // not in another group
    // The owner widens: to one chat (where the person is present), or everywhere.
    expect(store.share(secret, "-9")?.shared).toEqual(["-9"]);
    expect(shown(group("-9", ["100"]))).toEqual([secret]);
    expect(shown(group("-9", ["200"]))).toEqual([]); // carol is not there
    expect(shown(group("-5", ["100"]))).not.toContain(secret);
    expect(store.share(secret, EVERYWHERE)?.shared).toEqual([EVERYWHERE]);
    expect(shown(group("-5", ["100"]))).toContain(secret);
    expect(store.search(group("-5", ["100"]), "door code", 10).map((m) => m.id)).toEqual([secret]);
    expect(store.unshare(secret)?.shared).toBeUndefined();
    expect(shown(group("-5", ["100"]))).not.toContain(secret);
    expect(store.share(999, EVERYWHERE)).toBeUndefined();
    closeDatabase(db);
  });

  it("quotes every word of a full-text query, so user text is never query syntax", () => {
    expect(ftsQuery('what about "NEAR(a b)" OR tea*?')).toBe('"near" OR "tea"');
    expect(ftsQuery("ok, hi")).toBeUndefined();
  });
});
