import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../base/error-message";
import { createDbFile, narrowDbCopies, narrowDbFileModes, secureStateDir } from "./file-modes";
import { migrations } from "./migrations";

/** The project's SQLite handle type (better-sqlite3). */
export type Db = Database.Database;

/** How opening the database reports what it changed on disk, and how long it waits for locks. */
export interface OpenDatabaseOptions {
  /** Files (the state directory, the database, its -wal / -shm, copies of it there) whose modes were narrowed. */
  readonly onNarrowed?: (paths: readonly string[]) => void;
  /** How long a statement waits for another connection's lock (default {@link BUSY_TIMEOUT_MS}). */
  readonly busyTimeoutMs?: number;
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
 * Every error names the file and the likely remedy (DatabaseFileError).
 */
export function openDatabase(path: string, o: OpenDatabaseOptions = {}): Db {
  const narrowed: string[] = [];
  let db: Db;
  try {
    if (path !== ":memory:" && path !== "") {
      const dir = dirname(path);
      if (secureStateDir(dir)) narrowed.push(dir);
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

/** SQLite's "another connection holds the lock" (SQLITE_BUSY*, SQLITE_LOCKED*): wait and retry. */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** A database error with the file it is about and what the operator can do about it. */
export class DatabaseFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly remedy: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${detail}; ${remedy}`, options);
    this.name = "DatabaseFileError";
  }
}

/** `e` (from SQLite or the filesystem) as a DatabaseFileError naming `file` and the likely remedy. */
export function dbError(file: string, e: unknown): DatabaseFileError {
  if (e instanceof DatabaseFileError) return e;
  const code = (e as { code?: unknown } | undefined)?.code;
  const c = typeof code === "string" ? code : undefined;
  const message = errorMessage(e).split("\n")[0]!;
  const remedy = isBusy(e)
    ? "another process is using the database (a second npm start with the same STATE_DB, a backup, an sqlite3 shell): stop it, or give this one its own STATE_DB"
    : c?.startsWith("SQLITE_CORRUPT") || c === "SQLITE_NOTADB" || /malformed|not a database/i.test(message)
      ? "the file is damaged or is not this program's database: stop the persona and restore it from the backup (or move it away to start afresh)"
      : c?.startsWith("SQLITE_CANTOPEN") ||
          c?.startsWith("SQLITE_READONLY") ||
          c?.startsWith("SQLITE_PERM") ||
          c === "EACCES" ||
          c === "EPERM" ||
          c === "EROFS" ||
          c === "ENOTDIR" ||
          c === "EEXIST" ||
          c === "EISDIR"
        ? "check that its directory exists and that the user running it may read and write both the file and the directory"
        : c?.startsWith("SQLITE_FULL") || c === "ENOSPC"
          ? "the disk is full: free some space"
          : c?.startsWith("SQLITE_IOERR")
            ? "the disk failed to read or write: check the disk, then restore the file from the backup if it is damaged"
            : "see the message; the file is left as it was";
  return new DatabaseFileError(file, `${message}${c && !message.includes(c) ? ` (${c})` : ""}`, remedy, c, {
    cause: e,
  });
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

/** Most rows one group commit may hold before it is committed on the spot. */
const MAX_BATCH = 256;

interface Batch {
  /** True while a transaction opened by batchedWrite is open. */
  open: boolean;
  rows: number;
  scheduled: boolean;
  /** True while a `transaction()` runs inside the open batch (it commits the batch when it ends). */
  nested?: boolean;
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
 * with it. A process that dies mid-turn loses at most that turn's un-addressed messages.
 *
 * The batch begins IMMEDIATE: the write lock is taken at BEGIN, so a database busy with another
 * connection fails here (SQLITE_BUSY) before `fn` ran — the caller has changed nothing and may
 * retry the whole unit later — and never half-way through it.
 */
export function batchedWrite<T>(db: Db, fn: () => T): T {
  const b = batchOf(db);
  // Inside someone else's transaction (or a transaction() joined to the batch): just be part of it.
  if ((db.inTransaction && !b.open) || b.nested) return fn();
  if (!b.open) {
    db.exec("BEGIN IMMEDIATE");
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
      if (db.open) commitScheduled(db);
    });
  }
  return out;
}

/** Told when a group commit failed and was rolled back (the runtime refetches what it held). */
const commitFailureListeners = new WeakMap<Db, Set<(e: DatabaseFileError) => void>>();

/** Be told when a group commit of `db` fails (its rows are rolled back). Returns unsubscribe. */
export function onCommitFailure(db: Db, listener: (e: DatabaseFileError) => void): () => void {
  let set = commitFailureListeners.get(db);
  if (!set) commitFailureListeners.set(db, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** The end-of-turn commit: a failure (a full disk, an I/O error) must not kill the process. */
function commitScheduled(db: Db): void {
  try {
    commitPending(db);
  } catch (e) {
    if (db.inTransaction) {
      try {
        db.exec("ROLLBACK");
      } catch {
        /* SQLite rolled it back already */
      }
    }
    const err = dbError(db.name, e);
    const listeners = commitFailureListeners.get(db);
    if (!listeners?.size) throw err;
    for (const l of listeners) l(err);
  }
}

/** Commit the open group commit, if any. */
export function commitPending(db: Db): void {
  const b = batches.get(db);
  if (!b?.open) return;
  b.open = false;
  b.rows = 0;
  if (db.inTransaction) db.exec("COMMIT");
}

/**
 * Run `fn` as one durable transaction. With a group commit open (the write lock is ours), `fn`
 * joins it and both commit together — so an addressed message and its task are stored at once,
 * with no moment where another process could take the lock between them. Otherwise it begins
 * IMMEDIATE: a busy database fails at BEGIN, before `fn` ran.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  const b = batches.get(db);
  if (b?.open && !b.nested) {
    let out: T;
    b.nested = true;
    try {
      out = db.transaction(fn)(); // a savepoint inside the batch (nested calls: savepoints inside it)
    } finally {
      b.nested = false;
      commitPending(db);
    }
    return out;
  }
  if (db.inTransaction) return db.transaction(fn)();
  return db.transaction(fn).immediate();
}

/** Commit what is pending and close. (A crash — `db.close()` alone — rolls the batch back.) */
export function closeDatabase(db: Db): void {
  if (db.open) {
    commitPending(db);
    db.close();
  }
}
