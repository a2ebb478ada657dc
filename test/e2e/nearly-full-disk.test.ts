/**
 * A nearly full disk: the database grows into the last free space while 180 messages arrive —
 * some group commits go in, some are rolled back (at a statement, at COMMIT, at an addressed
 * message's transaction that joined them) — then space comes back without a restart. Every
 * message must be in the file and every addressed one answered once: a message whose group
 * commit was rolled back is run again, and its update is not confirmed (the stored pts never
 * passes it) until it is in the file.
 *
 * Two ways to run out of space. SQLite's own page limit on the real database file
 * (`PRAGMA max_page_count`: SQLite answers SQLITE_FULL to the write that needs a page past it)
 * runs everywhere; a real tmpfs of 2, 4 and 16 MB, filled to a few hundred KB, runs where the
 * test may mount one (root), and is skipped, saying why, where it may not.
 */
import Database from "better-sqlite3";
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isPlanRequest, promptSections, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";

let h: Harness | undefined;
const dirs: string[] = [];
const mounted: string[] = [];
afterEach(async () => {
  await h?.close().catch(() => undefined);
  h = undefined;
});
afterAll(() => {
  for (const d of mounted.splice(0)) execFileSync("umount", ["-l", d], { stdio: "ignore" });
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const SUMMARY: FakeReply = {
  json: { goals_and_open_questions: [], decisions: [], facts: [], outcomes: [], pending_actions: [] },
};
/** The text of an addressed message part (`⟦#id …⟧ text`). */
const textOf = (part: string) => /⟧ ([^\n]*)$/m.exec(part)?.[1] ?? part;

/** A temp directory, removed after the file's tests. */
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "userbot-nearly-full-"));
  dirs.push(d);
  return d;
}

/** Whether this process may mount a tmpfs (root, or CAP_SYS_ADMIN), tried once. */
const mountable = ((): boolean => {
  if (process.getuid?.() !== 0) return false;
  const d = tempDir();
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", d], { stdio: "ignore" });
    execFileSync("umount", [d], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

interface Space {
  /** Leave only a little room (called once the harness runs). */
  squeeze(db: Database.Database): void;
  /** Give space back (free what filled it, grow the disk). */
  grow(db: Database.Database): void;
}

/**
 * 180 messages (every tenth addressed, every fifteenth a DM, the rest ~4 KB of group chatter)
 * while the disk is nearly full, then space comes back: all 180 stored, each addressed one
 * answered once.
 */
async function nearlyFull(dir: string, space: Space): Promise<void> {
  h = await Harness.start({ dbPath: join(dir, "state.db") });
  const hh = h;
  hh.gemini.respondWith((body: GenerateBody) =>
    isPlanRequest(body)
      ? plan({ kind: "send", text: `re: ${promptSections(body).now.map(textOf).join(" + ")}` })
      : SUMMARY,
  );
  const dm = hh.emu.dm(hh.account, hh.carol);
  await hh.emu.post({ chat: dm, from: hh.carol, text: "hello before" });
  await hh.pass(20_000);
  space.squeeze(hh.db);
  const addressed: string[] = [];
  const posted: Promise<unknown>[] = [];
  for (let i = 0; i < 180; i++) {
    const toDm = i % 15 === 7;
    const asks = toDm || i % 10 === 0;
    const text = toDm
      ? `dm ${i}`
      : asks
        ? `Mira, question ${i}?`
        : `chatter ${i} ${"lorem ipsum ".repeat(330)}`;
    if (asks) addressed.push(text);
    posted.push(
      hh.emu.post({ chat: toDm ? dm : hh.group, from: toDm ? hh.carol : i % 2 ? hh.alice : hh.bob, text }),
    );
    if (i % 10 === 9) await hh.pass(1_000);
  }
  await hh.pass(30_000);
  space.grow(hh.db);
  await hh.pass(60_000);
  await Promise.all(posted);
  await hh.pass(60_000);

  const other = new Database(hh.dbPath, { readonly: true });
  const rows = other
    .prepare(
      `SELECT text FROM messages WHERE agent = 'Mira' AND is_agent = 0 AND (text LIKE 'chatter %' OR text LIKE 'Mira, question %' OR text LIKE 'dm %')`,
    )
    .pluck()
    .all() as string[];
  other.close();
  const missing = [...Array(180).keys()].filter(
    (i) =>
      !rows.some((r) => r.startsWith(`chatter ${i} `) || r === `dm ${i}` || r === `Mira, question ${i}?`),
  );
  expect(missing, "messages not in the file").toEqual([]);
  expect(rows).toHaveLength(180);
  const answered = [...hh.sent(dm).slice(1), ...hh.sent(hh.group)]
    .map((m) => m.text)
    .flatMap((t) => t.replace(/^re: /, "").split(" + "));
  expect([...answered].sort()).toEqual([...addressed].sort());
}

/** SQLite's default (and largest) max_page_count. */
const NO_PAGE_LIMIT = 4294967294;

describe("a nearly full disk loses no message", () => {
  // Where the database meets its limit depends on how the messages fall into commits: several
  // limits, each a fresh run, cover rollbacks at different places.
  it.each([50, 60, 70, 80])(
    "the database may grow by %i pages only (SQLite's page limit), then by as much as it wants: 180 of 180",
    async (room) => {
      await nearlyFull(tempDir(), {
        squeeze: (db) =>
          db.pragma(`max_page_count = ${(db.pragma("page_count", { simple: true }) as number) + room}`),
        grow: (db) => db.pragma(`max_page_count = ${NO_PAGE_LIMIT}`),
      });
    },
  );

  describe.skipIf(!mountable)(
    `on a real tmpfs${mountable ? "" : " (skipped: this process may not mount a tmpfs; it needs root)"}`,
    () => {
      it.each([
        [2, 150],
        [2, 300],
        [4, 150],
        [16, 400],
      ])("a %i MB disk with %i KB free, then freed and grown: 180 of 180", async (mb, freeKb) => {
        const dir = tempDir();
        execFileSync("mount", ["-t", "tmpfs", "-o", `size=${mb}m,mode=0700`, "tmpfs", dir], {
          stdio: "ignore",
        });
        mounted.push(dir);
        const filler = join(dir, "filler");
        await nearlyFull(dir, {
          squeeze: () => {
            const s = statfsSync(dir);
            const bytes = s.bavail * s.bsize - freeKb * 1024;
            const fd = openSync(filler, "w");
            const chunk = Buffer.alloc(4096, 0xab);
            try {
              for (let w = 0; w + chunk.length <= bytes; w += chunk.length) writeSync(fd, chunk);
            } finally {
              closeSync(fd);
            }
          },
          grow: () => {
            unlinkSync(filler);
            execFileSync("mount", ["-o", `remount,size=${mb * 2}m`, dir], { stdio: "ignore" });
          },
        });
      });
    },
  );
});
