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
  statSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { errorMessage } from "../base/error-message";

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

  const tmp = join(dirname(dst), `.${basename(dst)}.tmp-${process.pid}`);
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
    closeSync(openSync(tmp, "wx", 0o600));
    // First step: 0 pages (it only starts); then everything in one step, i.e. one read transaction.
    await db.backup(tmp, { progress: () => 0x7fffffff });
  } catch (e) {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
    throw new Error(`backup of ${src} failed: ${errorMessage(e)}`, { cause: e });
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
    throw new Error(`backup of ${src} failed: ${errorMessage(e)}`, { cause: e });
  }
  return { file: dst, bytes: statSync(dst).size, counts, ms: Math.round(performance.now() - t0) };
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
