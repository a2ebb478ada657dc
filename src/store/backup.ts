/**
 * Online backup of the state database (`npm run backup`): SQLite's backup API through
 * better-sqlite3, from a connection of its own, while the personas keep writing.
 *
 * The copy is taken in one backup step, i.e. inside one read transaction: in WAL mode that
 * blocks no writer, and the copy is the database as of one commit (a write by another
 * connection between steps would make SQLite restart the copy, so there is only one step
 * after the first, empty one). It is written to a temporary file created with mode 0600 in the
 * target's directory, checked, flushed to disk and renamed over the target: the target is
 * either the old backup or the complete new one, never half of one, and never readable by others.
 * What a backup killed midway left there (its temporary file and journal) is removed first
 * (store/backup-leftovers.ts); a target whose disk has less free space than the database needs
 * is refused before anything is written, and a disk that fills during the copy is said as such:
 * the target's directory, its free space, what the copy needs.
 */
import Database from "better-sqlite3";
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage } from "../base/error-message";
import { formatSize } from "../base/media-descriptor";
import { backupTempName, removeDeadBackupLeftovers, type Leftover } from "./backup-leftovers";

export interface BackupResult {
  readonly file: string;
  readonly bytes: number;
  /** Rows of what matters most, counted in the copy. */
  readonly counts: {
    readonly messages: number;
    readonly memories: number;
    readonly summaries: number;
    readonly openTasks: number;
  };
  readonly ms: number;
  /** What backups killed midway had left in the target's directory, removed before this one. */
  readonly removed: readonly Leftover[];
}

/** Free bytes for an unprivileged writer on the filesystem of `dir`; undefined when that cannot be told. */
function freeBytes(dir: string): number | undefined {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** The storage refused the copy: SQLite's "database or disk is full", or the filesystem's ENOSPC / EDQUOT. */
function diskFull(e: unknown): boolean {
  const code = String((e as { code?: unknown } | undefined)?.code ?? "");
  return (
    code.startsWith("SQLITE_FULL") ||
    code === "ENOSPC" ||
    code === "EDQUOT" ||
    /disk is full/.test(errorMessage(e))
  );
}

/** What a target's full disk is said as: where, how much is free, how much the copy needs. */
function fullDisk(dst: string, needs: number): string {
  const free = freeBytes(dirname(dst));
  return (
    `the disk of ${dirname(dst)} is full (${free !== undefined ? `${formatSize(free)} free` : "no space left"}; the copy needs about ${formatSize(needs)}); ` +
    `free some space there or name a target on another disk`
  );
}

/** Copy the database at `source` to `target` (see the file comment). Throws with a message naming what was wrong. */
export async function backupDatabase(source: string, target: string): Promise<BackupResult> {
  const t0 = performance.now();
  const src = resolve(source);
  const dst = resolve(target);
  if (!existsSync(src)) throw new Error(`${src}: no such database`);
  if (!existsSync(dirname(dst))) throw new Error(`${dirname(dst)}: no such directory`);
  if (existsSync(dst) && realpathSync(dst) === realpathSync(src))
    throw new Error(`${dst} is the database itself; name another file`);
  if (existsSync(dst) && statSync(dst).isDirectory()) throw new Error(`${dst} is a directory; name a file`);

  const removed = removeDeadBackupLeftovers(dirname(dst));
  let needs = statSync(src).size;
  const tmp = join(dirname(dst), backupTempName(basename(dst), process.pid));
  let db: Database.Database | undefined;
  try {
    db = new Database(src, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    // Not a database, or not ours: say so before copying anything.
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('messages', 'tasks')")
      .pluck()
      .all();
    if (tables.length < 2)
      throw new Error(`${src} is not this program's state database (no messages or tasks table)`);
    // The copy is as large as the database's pages: a disk with less free space is said before
    // anything is written.
    needs =
      (db.pragma("page_count", { simple: true }) as number) *
      (db.pragma("page_size", { simple: true }) as number);
    const free = freeBytes(dirname(dst));
    if (free !== undefined && free < needs) throw Object.assign(new Error("no space"), { code: "ENOSPC" });
    closeSync(openSync(tmp, "wx", 0o600));
    // First step: 0 pages (it only starts); then everything in one step, i.e. one read transaction.
    await db.backup(tmp, { progress: () => 0x7fffffff });
  } catch (e) {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
    throw new Error(
      `backup of ${src} to ${dst} failed: ${diskFull(e) ? fullDisk(dst, needs) : errorMessage(e)}`,
      {
        cause: e,
      },
    );
  } finally {
    db?.close();
  }

  let counts: BackupResult["counts"];
  try {
    const copy = new Database(tmp, { fileMustExist: true });
    try {
      const check = copy.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new Error(`the copy fails SQLite's check: ${String(check)}`);
      const count = (sql: string) => copy.prepare(sql).pluck().get() as number;
      counts = {
        messages: count("SELECT count(*) FROM messages"),
        memories: count("SELECT count(*) FROM memories"),
        summaries: count("SELECT count(*) FROM lane_summaries"),
        openTasks: count("SELECT count(*) FROM tasks WHERE status IN ('pending','running')"),
      };
    } finally {
      copy.close();
    }
    const fd = openSync(tmp, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, dst);
    syncDir(dirname(dst));
  } catch (e) {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
    throw new Error(
      `backup of ${src} to ${dst} failed: ${diskFull(e) ? fullDisk(dst, needs) : errorMessage(e)}`,
      {
        cause: e,
      },
    );
  }
  return { file: dst, bytes: statSync(dst).size, counts, ms: Math.round(performance.now() - t0), removed };
}

/** Make a rename durable (best effort: some file systems cannot fsync a directory). */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not supported here; the rename itself is still atomic
  }
}
