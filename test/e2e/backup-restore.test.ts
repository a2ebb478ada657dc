import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main as backupScript } from "../../scripts/backup";
import { backupDatabase } from "../../src/store/backup";
import { openDatabase } from "../../src/store/db";
import { messageText, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness } from "../support/harness";
import { tempDir } from "../support/temp-dir";

/**
 * `npm run backup` while the persona runs, then a restore into a fresh directory: what was
 * committed when the copy was taken is all there, and the catch-up brings what came after.
 */
/** A persona on the emulator for the length of `fn`. */
async function withHarness(fn: (h: Harness) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

/** Every "say <word>" in the last user turn is answered "re <word>"; "note <word>" is remembered; "later" waits an hour first. */
function responder(body: GenerateBody): FakeReply {
  const text = messageText(body);
  const tasks: unknown[] = [];
  for (const m of text.matchAll(/note (\w+)/g))
    tasks.push({ kind: "remember", content: `carol's word is ${m[1]}` });
  if (/later/.test(text)) tasks.push({ kind: "wait", seconds: 3600 });
  for (const m of text.matchAll(/say (\w+)/g)) tasks.push({ kind: "send", text: `re ${m[1]}` });
  return { json: { tasks } };
}

type Row = { chat: string; id: number; text: string; agent: number };
function rows(path: string): Row[] {
  const db = openDatabase(path);
  const r = db
    .prepare(
      "SELECT chat_id AS chat, message_id AS id, text, is_agent AS agent FROM messages ORDER BY chat_id, message_id",
    )
    .all() as Row[];
  db.close();
  return r;
}
const key = (r: { chat: string; id: number }) => `${r.chat}#${r.id}`;

/**
 * Addressed messages of a database (those naming the persona — "Mira, …" in the group — and
 * every DM from someone else) that no planning task covers, as `chat#id`.
 */
function addressedWithoutTask(path: string): string[] {
  const db = openDatabase(path);
  try {
    const covered = new Set<string>();
    const tasks = db.prepare("SELECT chat_id AS chat, payload FROM tasks WHERE kind = 'received'").all() as {
      chat: string;
      payload: string;
    }[];
    for (const t of tasks) {
      const p = JSON.parse(t.payload) as { items?: { messageId: number }[] };
      for (const item of p.items ?? []) covered.add(key({ chat: t.chat, id: item.messageId }));
    }
    const addressed = (
      db
        .prepare("SELECT chat_id AS chat, message_id AS id, text, is_agent AS agent FROM messages")
        .all() as Row[]
    ).filter((r) => r.agent === 0 && (/^Mira, /.test(r.text) || !r.chat.startsWith("-")));
    expect(addressed.length).toBeGreaterThan(0);
    return addressed.filter((r) => !covered.has(key(r))).map(key);
  } finally {
    db.close();
  }
}

describe("online backup and restore", () => {
  it("a backup taken while messages and sends are written restores into a fresh directory: everything committed is there, and the catch-up fetches what arrived since", async () => {
    await withHarness(async (hh) => {
      hh.gemini.respondWith(responder);
      const dm = hh.emu.dm(hh.account, hh.carol);
      // Before: a memory, a summary, a task that stays pending (a send behind an hour's wait).
      await hh.emu.post({ chat: dm, from: hh.carol, text: "note tangerine, and say hi, then say bye later" });
      await hh.pass(20_000);
      hh.runtime.summaries.put({
        lane: `root:${hh.emu.chats.peerIdFor(hh.group, hh.account)}`,
        chatId: hh.emu.chats.peerIdFor(hh.group, hh.account),
        version: 1,
        fromId: 1,
        toId: 1,
        content: "{}",
        updatedAt: hh.clock.now(),
      });
      const pending = hh.runtime.scheduler.openTasks().map((t) => `${t.id} ${t.kind}`);
      expect(pending.filter((t) => / (wait|send)$/.test(t))).toHaveLength(3); // wait, then "re hi" and "re bye"
      const committed = new Set(rows(hh.dbPath).map(key));

      // The copy is taken while the group chatters and the persona answers mentions there.
      const target = join(tempDir(), "backup.db");
      let posting = true;
      const writing = (async () => {
        for (let i = 0; posting || i < 30; i++) {
          await hh.emu.post({
            chat: hh.group,
            from: i % 2 ? hh.alice : hh.bob,
            text: i % 7 === 3 ? `Mira, say g${i}` : `chatter ${i}`,
          });
          await hh.pass(300);
        }
      })();
      // Commits by any other connection move SQLite's data_version as this one sees it.
      const watcher = openDatabase(hh.dbPath);
      const dataVersion = () => watcher.pragma("data_version", { simple: true }) as number;
      const storedNow = () => watcher.prepare("SELECT count(*) FROM messages").pluck().get() as number;
      const versionBefore = dataVersion();
      const rowsBefore = storedNow();
      const copy = await backupDatabase(hh.dbPath, target);
      // The persona kept writing while the copy was taken: the backup blocked no writer.
      const versionAfter = dataVersion();
      const rowsAfter = storedNow();
      watcher.close();
      expect(versionAfter).not.toBe(versionBefore);
      expect(rowsAfter).toBeGreaterThan(rowsBefore);
      posting = false;
      await writing;
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(copy.counts.memories).toBe(1);
      expect(copy.counts.summaries).toBe(1);

      // The copy is of one moment: no addressed message in it lacks the task that answers it
      // (a message and its task are one commit).
      expect(addressedWithoutTask(target)).toEqual([]);

      // The disk is lost; more arrives while the persona is down: chatter, and a DM.
      const backed = rows(target);
      const inBackup = new Set(backed.map(key));
      for (const k of committed) expect(inBackup.has(k), k).toBe(true);
      hh.crash();
      for (let i = 0; i < 5; i++) await hh.emu.post({ chat: hh.group, from: hh.alice, text: `after ${i}` });
      const bobDm = hh.emu.dm(hh.account, hh.bob);
      await hh.emu.post({ chat: bobDm, from: hh.bob, text: "say again" });

      // The backup goes into a fresh directory and a new process starts on it.
      const restored = join(tempDir(), "state.db");
      copyFileSync(target, restored);
      hh.dbPath = restored;
      hh.boot();
      await hh.runtime.caughtUp;
      // The tasks that were open at the copy are open again.
      const open = hh.runtime.scheduler.openTasks().map((t) => `${t.id} ${t.kind}`);
      for (const t of pending) expect(open).toContain(t);
      await hh.pass(30_000);

      // Memory, summary, the pending task and the update state came back with it.
      const db = hh.db;
      expect(db.prepare("SELECT content FROM memories").pluck().all()).toEqual(["carol's word is tangerine"]);
      expect(db.prepare("SELECT count(*) FROM lane_summaries").pluck().get()).toBe(1);
      expect(db.prepare("SELECT count(*) FROM update_state").pluck().get()).toBeGreaterThan(0);

      // Every message the server has is stored, once: the catch-up fetched what the backup lacked.
      const server = [hh.group, dm, bobDm].flatMap((chat) =>
        hh.emu
          .history(chat, hh.account)
          .map((m) => ({ chat: hh.emu.chats.peerIdFor(chat, hh.account), id: m.id, text: m.text })),
      );
      const now = rows(restored);
      expect(new Set(now.map(key)).size).toBe(now.length);
      for (const m of server)
        expect(
          now.some((r) => key(r) === key(m)),
          key(m),
        ).toBe(true);
      // Nothing was sent twice (a send the copy still had as open ran again with its random_id).
      const sent = hh.emu
        .history(hh.group)
        .filter((m) => m.fromId === hh.account.id)
        .map((m) => m.text);
      expect(new Set(sent).size).toBe(sent.length);
      // The DM that came after the copy was answered.
      expect(hh.sent(bobDm).map((m) => m.text)).toEqual(["re again"]);
    });
  }, 60_000);

  it("npm run backup: a consistent copy named on the command line, mode 0600; a missing database or file name is an error that says so", async () => {
    await withHarness(async (h) => {
      await h.emu.post({ chat: h.group, from: h.alice, text: "hello" });
      await h.pass(1000);
      const out: string[] = [];
      const err: string[] = [];
      const io = {
        stdout: (t: string) => out.push(t),
        stderr: (t: string) => err.push(t),
        env: {},
        cwd: tempDir(),
      };
      const target = join(tempDir(), "copy.db");
      expect(await backupScript([target, "--db", h.dbPath], io)).toBe(0);
      expect(out.join("")).toMatch(
        /^backup: .*copy\.db \(\d+\.\d MB, mode 0600\) in \d+\.\d s: 1 messages, 0 memories, 0 summaries, \d+ open tasks\n$/,
      );
      expect(statSync(target).mode & 0o777).toBe(0o600);
      expect(rows(target).map((r) => r.text)).toEqual(["hello"]);

      expect(await backupScript([target, "--db", join(tempDir(), "nope.db")], io)).toBe(1);
      expect(err.join("")).toContain("nope.db: no such database");
      expect(await backupScript([], io)).toBe(2);
      expect(err.join("")).toContain("name the file to write");
      expect(await backupScript([target, "--bogus"], io)).toBe(2);
      expect(err.join("")).toContain('unknown flag "--bogus"');
      expect(await backupScript([h.dbPath, "--db", h.dbPath], io)).toBe(1);
      expect(err.join("")).toContain("is the database itself");
    });
  });
});
