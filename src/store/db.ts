import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseFileError, dbError, mustWait } from "./db-errors";
import { createDbFile, narrowDbCopies, narrowDbFileModes, secureStateDir } from "./file-modes";
import { migrations } from "./migrations";
import { removeDeadBackupLeftovers, type Leftover } from "./backup-leftovers";
import { commitPending } from "./group-commit";
import { backupBeforeMigration, type MigrationBackup } from "./migration-backup";
import { refuseUnreadableLog } from "./unreadable-log";

export { isBusy, mustWait, DatabaseFileError, describeDbFailure, dbError } from "./db-errors";
export { committed, batchedWrite, commitPending, transaction } from "./group-commit";
export {
  onWriteFailure,
  onWriteRecovered,
  writeFailing,
  writeFailures,
  type WriteFailure,
} from "./write-failures";

/** The project's SQLite handle type (better-sqlite3). */
export type Db = Database.Database;

/** How opening the database reports what it changed on disk, and how long it waits for locks. */
export interface OpenDatabaseOptions {
  /** Files (the state directory, the database, its -wal / -shm, copies of it there) whose modes were narrowed. */
  readonly onNarrowed?: (paths: readonly string[]) => void;
  /** How long a statement waits for another connection's lock (default {@link BUSY_TIMEOUT_MS}). */
  readonly busyTimeoutMs?: number;
  /** What backups killed midway left beside the database, removed (store/backup-leftovers.ts). */
  readonly onLeftovers?: (removed: readonly Leftover[]) => void;
  /**
   * Keep a copy of a database that holds data before a migration changes its schema
   * (store/migration-backup.ts; `npm start` does), and be told what was kept.
   */
  readonly backupBeforeMigration?: (b: MigrationBackup) => void;
}

/** How long a statement waits for another connection's lock before SQLITE_BUSY (see openDatabase). */
const BUSY_TIMEOUT_MS = 1000;

/**
 * Open (or create) the state database, set the pragmas we rely on and apply pending migrations.
 * WAL + synchronous=NORMAL: a crash can lose at most the last transactions since the last
 * checkpoint-less fsync, never corrupt the file; that is the trade the task engine is built for.
 * Files at rest (file-modes.ts): the directory 0700, the database and its -wal / -shm 0600,
 * whatever the umask; wider ones left by an earlier run are narrowed, and so are copies of a
 * database (backups) left in the state directory.
 *
 * A lock held by another connection is waited for `busyTimeoutMs` (default 1 s) — and that wait
 * blocks the event loop, so it is short: a longer one fails with SQLITE_BUSY, which the inbound
 * path and the scheduler wait out asynchronously (store/write-gate.ts, tasks/scheduler.ts).
 * Every error names the file and the likely remedy (DatabaseFileError). A file without its
 * schema beside a non-empty `-wal` is refused before SQLite opens it for writing (see
 * refuseUnreadableLog): never a first start that skips what was missed.
 *
 * Beside opening, closing and migrating (here): which errors mean wait and what they tell the
 * operator (db-errors.ts), the group commit and durable transactions (group-commit.ts), failed
 * writes and who is told (write-failures.ts); all are exported from here too.
 */
export function openDatabase(path: string, o: OpenDatabaseOptions = {}): Db {
  const narrowed: string[] = [];
  let db: Db;
  if (path !== ":memory:" && path !== "") refuseUnreadableLog(path);
  try {
    if (path !== ":memory:" && path !== "") {
      const dir = dirname(path);
      if (secureStateDir(dir)) narrowed.push(dir);
      const removed = removeDeadBackupLeftovers(dir);
      if (removed.length > 0) o.onLeftovers?.(removed);
      narrowed.push(...narrowDbCopies(dir));
      if (!existsSync(path)) createDbFile(path);
      narrowed.push(...narrowDbFileModes(path));
    }
    db = new Database(path);
  } catch (e) {
    throw dbError(path, e);
  }
  try {
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(o.busyTimeoutMs ?? BUSY_TIMEOUT_MS))}`);
    // A new database gives freed pages back on request (store/retention.ts); this must be set
    // before the first table exists. Older databases are switched once by enableIncrementalVacuum.
    if (db.prepare("SELECT count(*) FROM sqlite_master").pluck().get() === 0)
      db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    const from = db.pragma("user_version", { simple: true }) as number;
    if (o.backupBeforeMigration && from > 0 && from < migrations.length && path !== ":memory:" && path !== "")
      o.backupBeforeMigration(backupBeforeMigration(db, path, from, migrations.length));
    migrate(db);
    // SQLite gives -wal and -shm the database file's mode; this only catches a companion that an
    // older run left wider and SQLite kept.
    if (path !== ":memory:" && path !== "") narrowed.push(...narrowDbFileModes(path));
  } catch (e) {
    db.close();
    throw e instanceof DatabaseFileError ? e : dbError(path, e);
  }
  if (narrowed.length > 0) o.onNarrowed?.([...new Set(narrowed)]);
  return db;
}

/** Apply every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > migrations.length) {
    throw new DatabaseFileError(
      db.name,
      `its schema version ${current} is newer than this program knows (${migrations.length}), so it was written by a newer version`,
      "run that version, or restore a backup made by this one; the file is left as it was",
      undefined,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    const step = migrations[v]!;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

/**
 * Run `fn` (writing to `db`) without SQLite's busy wait: a write lock another connection holds
 * fails at once with SQLITE_BUSY instead of blocking the event loop for the busy timeout — for
 * a caller that waits asynchronously and tries again (the operator console's actions).
 */
export function withoutBusyWait<T>(db: Db, fn: () => T): T {
  const timeout = db.pragma("busy_timeout", { simple: true }) as number;
  db.pragma("busy_timeout = 0");
  try {
    return fn();
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Commit what is pending and close. (A crash — `db.close()` alone — rolls the batch back.) A
 * commit the storage refuses (a full disk at the stop) is rolled back — with it the update state
 * that covers it, so the next start fetches those messages again — and the file is closed all
 * the same: the stop was said once already (runtime/storage-watch.ts sayStopping).
 */
export function closeDatabase(db: Db): void {
  if (db.open) {
    try {
      commitPending(db);
    } catch (e) {
      if (!mustWait(e)) throw e;
    } finally {
      db.close();
    }
  }
}
