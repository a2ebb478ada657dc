/**
 * The newest messages read as new: in a chat of any age the messages being answered, and
 * everything after the first of them, are under ⟦history⟧ in order — never under ⟦earlier⟧'s
 * "older messages … a selection" (issue 37: a young chat whose first messages were the addressed
 * ones showed them as an old selection). Built with the product's context code over a real
 * SQLite store; the assertions are on the rendered request.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePersona } from "../../src/config/persona";
import { contextPrompt, selectContext } from "../../src/planning/assemble";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { EntityStore } from "../../src/store/entities";
import { MessageStore } from "../../src/store/messages";
import type Database from "better-sqlite3";

const SELF = "500";
const GROUP = "-100777";
const T0 = Date.UTC(2026, 10, 20, 18, 0, 0);
const PEOPLE = [
  ["1001", "Anna", "anna"],
  ["1002", "Bob", "bob"],
  ["1003", "Chen", "chen"],
] as const;
const persona = parsePersona("# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n\n# Time Zone\nUTC\n", {
  file: "agents/Mira.md",
  promptDirs: [],
});

let dir: string;
let db: Database.Database;
let messages: MessageStore;
let entities: EntityStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "young-chat-"));
  db = openDatabase(join(dir, "state.db"));
  messages = new MessageStore(db, "t");
  entities = new EntityStore(db, "t");
  entities.observe({
    peerId: SELF,
    kind: "user",
    firstName: "Mira",
    username: "mira_ai",
    bot: false,
    min: false,
  });
  for (const [peerId, firstName, username] of PEOPLE)
    entities.observe({ peerId, kind: "user", firstName, username, bot: false, min: false });
});
afterEach(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

/** A chat of `n` messages (ids 1..n), `asks` of them the persona is asked in; the rendered request's user turn. */
function request(
  n: number,
  asks: readonly number[],
  o: { chatType?: "supergroup" | "dm"; summarisedUpTo?: number } = {},
): string[] {
  const chatType = o.chatType ?? "supergroup";
  const chatId = chatType === "dm" ? "1001" : GROUP;
  for (let id = 1; id <= n; id++) {
    const [senderId, senderName] = chatType === "dm" ? PEOPLE[0] : PEOPLE[id % 3]!;
    messages.insert({
      chatId,
      messageId: id,
      senderId,
      senderName,
      date: T0 + id * 60_000,
      text: asks.includes(id) ? `Mira, question ${id}?` : `talk ${id}`,
      isAgent: false,
    });
  }
  messages.commit();
  const sources = { persona, messages, entities, selfId: SELF };
  const ctx = selectContext(sources, {
    chat: { chatId, chatType, title: chatType === "dm" ? "Anna" : "Friends", members: 4 },
    items: asks.map((messageId) => ({ messageId })),
    ...(o.summarisedUpTo !== undefined ? { roomSummarisedUpTo: o.summarisedUpTo } : {}),
  });
  const p = contextPrompt(sources, ctx, { memories: [], now: T0 + (n + 1) * 60_000 });
  return p.contents[0]!.parts.map((x) => ("text" in x ? x.text : ""));
}

/** The ids of the message headers under ⟦history⟧, in order, and whether ⟦earlier⟧ appears. */
function sections(parts: readonly string[]): { earlier: number[]; history: number[] } {
  const out = { earlier: [] as number[], history: [] as number[] };
  let at: "earlier" | "history" | undefined;
  for (const p of parts) {
    if (p.startsWith("⟦earlier⟧")) at = "earlier";
    else if (p.startsWith("⟦history⟧")) at = "history";
    const id = /^⟦#(\d+) /.exec(p)?.[1];
    if (id !== undefined && at !== undefined) out[at].push(Number(id));
  }
  return out;
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("a young chat's newest messages are ⟦history⟧, in order", () => {
  it("1 message: the first message of a private chat", () => {
    const parts = request(1, [1], { chatType: "dm" });
    expect(sections(parts)).toEqual({ earlier: [], history: [1] });
    expect(parts.join("\n")).not.toContain("⟦earlier⟧");
    expect(parts.at(-1)).toMatch(/New for you: #1\.$/);
  });

  it("2 messages: two people ask at once", () => {
    expect(sections(request(2, [1, 2]))).toEqual({ earlier: [], history: [1, 2] });
  });

  it("3 messages: asked first, then others talk on — her question is not an old selection", () => {
    const parts = request(3, [1]);
    expect(sections(parts)).toEqual({ earlier: [], history: [1, 2, 3] });
    expect(parts.find((p) => p.startsWith("⟦#1 "))).toContain("calls you by name");
  });

  it("15 messages: the first two ask her, thirteen follow", () => {
    expect(sections(request(15, [1, 2]))).toEqual({ earlier: [], history: range(1, 15) });
  });

  it("60 messages: a burst that began 30 messages ago — all of it from its first message on, in order", () => {
    const parts = request(60, [30, 60], { summarisedUpTo: 55 });
    expect(sections(parts)).toEqual({ earlier: [], history: range(30, 60) });
    expect(parts.at(-1)).toMatch(/New for you: #30, #60\.$/);
  });

  it("60 messages, one question at the end: the newest 16 and the question, nothing labelled older", () => {
    const parts = request(60, [60], { summarisedUpTo: 55 });
    expect(sections(parts)).toEqual({ earlier: [], history: range(44, 60) });
  });
});
