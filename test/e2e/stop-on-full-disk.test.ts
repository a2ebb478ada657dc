/**
 * Stopping (Ctrl-C, SIGTERM) while the disk under the database is full: the messages that
 * wait for the disk are not stored, and that is said once — the database, how many, that they
 * are fetched again at the next start, and to free space first — not one error with a stack per
 * waiting update. The next start (space freed) stores every one of them.
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Harness } from "../support/harness";

let h: Harness | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close().catch(() => undefined);
  h = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("stopping while the disk is full", () => {
  it("says once which database refused the waiting messages and what to do; the next start stores them all", async () => {
    dir = mkdtempSync(join(tmpdir(), "userbot-stop-full-"));
    const dbPath = join(dir, "state.db");
    h = await Harness.start({ dbPath });
    const hh = h;
    await hh.emu.post({ chat: hh.group, from: hh.bob, text: "morning all" });
    await hh.pass(5_000);
    // The disk is full: the database may not grow by a page (SQLite answers SQLITE_FULL).
    hh.db.pragma(`max_page_count = ${hh.db.pragma("page_count", { simple: true }) as number}`);
    for (let i = 0; i < 68; i++)
      void hh.emu.post({
        chat: hh.group,
        from: i % 2 ? hh.alice : hh.bob,
        text: `chatter ${i} ${"x".repeat(3000)}`,
      });
    await hh.pass(10_000);
    const log = hh.log;
    const before = log.lines().length;
    // Stop (as Ctrl-C does) and start again on the same file; the new connection has no page
    // limit: space was freed meanwhile.
    await hh.restart();

    const stopping = log.lines().slice(before);
    const loud = stopping.filter((l) => Number(l.level) >= 40);
    expect(loud.map((l) => l.msg)).toHaveLength(1);
    expect(String(loud[0]!.msg)).toMatch(
      /^stopping while \S*state\.db refuses writes \(database or disk is full\): \d+ incoming updates were not stored; the next start fetches them from Telegram\. Free some space on its filesystem \(\S+ \S+ free now\) before starting again$/,
    );
    expect(loud[0]!.file).toBe(dbPath);
    expect(log.text()).not.toMatch(/update handling failed|\\n\s+at |"stack":/);

    // The next start fetches every one of them.
    await hh.pass(30_000);
    const other = new Database(dbPath, { readonly: true });
    const stored = other
      .prepare(`SELECT count(*) FROM messages WHERE agent = 'Mira' AND text LIKE 'chatter %'`)
      .pluck()
      .get();
    other.close();
    expect(stored).toBe(68);
  });
});
