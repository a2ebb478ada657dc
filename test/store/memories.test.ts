import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { ftsQuery, MemoryStore } from "../../src/store/memories";
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
    old.prepare(`INSERT INTO memories (agent, chat_id, content, created_at) VALUES (?, ?, ?, ?)`).run("Mira", "42", "Carol is vegetarian", 5 * DAY);
    old.prepare(`INSERT INTO memories (agent, chat_id, content, created_at) VALUES (?, ?, ?, ?)`).run("Mira", "-100777", "the group meets on fridays", 6 * DAY);
    old.close();

    const db = openDatabase(path);
    const store = new MemoryStore(db, "Mira");
    expect(store.list("42")).toEqual([{ id: 1, chatId: "42", content: "Carol is vegetarian", createdAt: 5 * DAY, updatedAt: 5 * DAY }]);
    expect(store.list("-100777").map((m) => m.content)).toEqual(["the group meets on fridays"]);
    // Old rows are found by full-text search, in their own chat only.
    expect(store.search("42", [], "is she vegetarian?", 5).map((m) => m.content)).toEqual(["Carol is vegetarian"]);
    expect(store.search("-100777", [], "is she vegetarian?", 5)).toEqual([]);
    closeDatabase(db);
  });

  it("merges a near-duplicate about the same person instead of stacking it, keeping the fuller wording", () => {
    const db = openDatabase(tempDbPath());
    const store = new MemoryStore(db, "Mira");
    expect(store.remember({ chatId: "-1", subject: "7", content: "Alice has a dog", now: DAY }).merged).toBe(false);
    expect(store.remember({ chatId: "-2", subject: "7", content: "alice has a dog called Rex", now: 2 * DAY })).toEqual({ id: 1, merged: true });
    expect(store.remember({ chatId: "-2", subject: "7", content: "Alice has a dog!", now: 3 * DAY }).merged).toBe(true);
    // The same words about someone else, or as a note about the chat, are another memory.
    expect(store.remember({ chatId: "-2", subject: "8", content: "Alice has a dog", now: 3 * DAY }).merged).toBe(false);
    expect(store.remember({ chatId: "-2", content: "Alice has a dog", now: 3 * DAY }).merged).toBe(false);
    expect(store.about("7")).toEqual([{ id: 1, subject: "7", chatId: "-1", content: "alice has a dog called Rex", createdAt: DAY, updatedAt: 3 * DAY }]);
    // The full-text index follows the merged wording.
    expect(store.search("-1", ["7"], "what is the dog called? Rex?", 5).map((m) => m.id)).toEqual([1]);
    expect(store.count()).toBe(3);
    closeDatabase(db);
  });

  it("shows a memory about a person only where they are present, or in the chat it was stored in", () => {
    const db = openDatabase(tempDbPath());
    const store = new MemoryStore(db, "Mira");
    store.remember({ chatId: "100", subject: "100", content: "Carol is allergic to peanuts", now: DAY });
    store.remember({ chatId: "-5", content: "this group plans a peanut-free picnic", now: DAY });
    expect(store.visible("-9", ["200"], 10)).toEqual([]);
    expect(store.search("-9", ["200"], "peanuts picnic", 10)).toEqual([]);
    expect(store.visible("-9", ["200", "100"], 10).map((m) => m.content)).toEqual(["Carol is allergic to peanuts"]);
    expect(store.visible("100", [], 10).map((m) => m.content)).toEqual(["Carol is allergic to peanuts"]);
    expect(store.search("-5", [], "peanut-free picnic", 10).map((m) => m.content)).toEqual(["this group plans a peanut-free picnic"]);
    closeDatabase(db);
  });

  it("quotes every word of a full-text query, so user text is never query syntax", () => {
    expect(ftsQuery('what about "NEAR(a b)" OR tea*?')).toBe('"near" OR "tea"');
    expect(ftsQuery("ok, hi")).toBeUndefined();
  });
});
