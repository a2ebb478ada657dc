import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { createDbFile, narrowDbFileModes, secureStateDir } from "./file-modes";
import { migrations } from "./migrations";

/** The project's SQLite handle type (better-sqlite3). */
export type Db = Database.Database;

/** What opening the database changed on disk (for a warning line): modes narrowed. */
export interface OpenDatabaseOptions {
  /** Files (the state directory, the database, its -wal / -shm) whose modes were narrowed. */
  readonly onNarrowed?: (paths: readonly string[]) => void;
}

/**
 * Open (or create) the state database, set the pragmas we rely on and apply pending migrations.
 * WAL + synchronous=NORMAL: a crash can lose at most the last transactions since the last
 * checkpoint-less fsync, never corrupt the file; that is the trade the task engine is built for.
 * Files at rest (file-modes.ts): the directory 0700, the database and its -wal / -shm 0600,
 * whatever the umask; wider ones left by an earlier run are narrowed.
 */
export function openDatabase(path: string, o: OpenDatabaseOptions = {}): Db {
  const narrowed: string[] = [];
  if (path !== ":memory:" && path !== "") {
    const dir = dirname(path);
    if (secureStateDir(dir)) narrowed.push(dir);
    if (!existsSync(path)) createDbFile(path);
    narrowed.push(...narrowDbFileModes(path));
  }
  const db = new Database(path);
  try {
    // A new database gives freed pages back on request (store/retention.ts); this must be set
    // before the first table exists. Older databases are switched once by enableIncrementalVacuum.
    if (db.prepare("SELECT count(*) FROM sqlite_master").pluck().get() === 0) db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    migrate(db);
    // SQLite gives -wal and -shm the database file's mode; this only catches a companion that an
    // older run left wider and SQLite kept.
    if (path !== ":memory:" && path !== "") narrowed.push(...narrowDbFileModes(path));
  } catch (e) {
    db.close();
    throw new Error(`${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (narrowed.length > 0) o.onNarrowed?.([...new Set(narrowed)]);
  return db;
}

/** Apply every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `state database schema version ${current} is newer than this program knows (${migrations.length}); refusing to touch it`,
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

/** Most rows one group commit may hold before it is committed on the spot. */
const MAX_BATCH = 256;

interface Batch {
  /** True while a transaction opened by batchedWrite is open. */
  open: boolean;
  rows: number;
  scheduled: boolean;
}
const batches = new WeakMap<Db, Batch>();

function batchOf(db: Db): Batch {
  let b = batches.get(db);
  if (!b) {
    b = { open: false, rows: 0, scheduled: false };
    batches.set(db, b);
  }
  return b;
}

/**
 * Group commit for the inbound hot path. `fn` runs inside a transaction that stays open until
 * the current event-loop turn ends (setImmediate) or MAX_BATCH rows, whichever comes first:
 * an autocommit insert costs ~15 µs here, a row in an open transaction ~2.5 µs. Messages that
 * arrive together — GramJS hands over a whole network read at once — share one commit.
 * Everything that must be durable *now* goes through `transaction()`, which commits the batch
 * first. A process that dies mid-turn loses at most that turn's un-addressed messages.
 */
export function batchedWrite<T>(db: Db, fn: () => T): T {
  const b = batchOf(db);
  // Inside someone else's transaction: just be part of it.
  if (db.inTransaction && !b.open) return fn();
  if (!b.open) {
    db.exec("BEGIN");
    b.open = true;
    b.rows = 0;
  }
  let out: T;
  try {
    out = fn();
  } catch (e) {
    // Nothing of ours is in the batch yet: close it rather than leave a BEGIN dangling.
    if (b.rows === 0) {
      b.open = false;
      if (db.inTransaction) db.exec("ROLLBACK");
    }
    throw e;
  }
  b.rows++;
  if (b.rows >= MAX_BATCH) commitPending(db);
  else if (!b.scheduled) {
    b.scheduled = true;
    setImmediate(() => {
      b.scheduled = false;
      if (db.open) commitPending(db);
    });
  }
  return out;
}

/** Commit the open group commit, if any. */
export function commitPending(db: Db): void {
  const b = batches.get(db);
  if (!b?.open) return;
  b.open = false;
  b.rows = 0;
  if (db.inTransaction) db.exec("COMMIT");
}

/** Run `fn` as one durable transaction (after committing any pending group commit). */
export function transaction<T>(db: Db, fn: () => T): T {
  commitPending(db);
  return db.transaction(fn)();
}

/** Commit what is pending and close. (A crash — `db.close()` alone — rolls the batch back.) */
export function closeDatabase(db: Db): void {
  if (db.open) {
    commitPending(db);
    db.close();
  }
}
