import Database from "better-sqlite3";
import { existsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { errorMessage } from "../base/error-message";
import { createDbFile, narrowDbCopies, narrowDbFileModes, secureStateDir } from "./file-modes";
import { migrations } from "./migrations";
import { removeDeadBackupLeftovers, type Leftover } from "./backup-leftovers";
import { backupBeforeMigration, type MigrationBackup } from "./migration-backup";

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

/**
 * A database whose file holds no table while its write-ahead log (`-wal`) is not empty: SQLite
 * could not read the log (its header damaged in a crash, or the file put back without it), so
 * it sees an empty database — and opening it read-write would delete the log on close and
 * start afresh, a first start that fetches nothing of what was missed. Refused, with what to
 * do; both files are left as they are. (Checked on a read-only connection, which never touches
 * the log; only when a non-empty log is there, i.e. after a crash.)
 */
function refuseUnreadableLog(path: string): void {
  const wal = `${path}-wal`;
  let walBytes: number;
  try {
    walBytes = statSync(wal).size;
  } catch {
    return;
  }
  if (walBytes === 0) return;
  let tables = 0;
  if (existsSync(path) && statSync(path).size > 0) {
    try {
      const ro = new Database(path, { readonly: true, fileMustExist: true });
      try {
        tables = ro.prepare("SELECT count(*) FROM sqlite_master").pluck().get() as number;
      } finally {
        ro.close();
      }
    } catch {
      return; // not readable at all: the ordinary open says why
    }
  }
  if (tables > 0) return;
  throw new DatabaseFileError(
    path,
    `it holds no tables, yet its write-ahead log ${wal} holds ${walBytes} bytes SQLite cannot read (damaged by a crash, or the database was put back without it); starting would count as a first start and never fetch the messages missed meanwhile`,
    `restore the database from a backup (npm run backup makes one), or, to start afresh on purpose, move both ${path} and ${wal} away; both are left as they are`,
    undefined,
  );
}

/** SQLite's "another connection holds the lock" (SQLITE_BUSY*, SQLITE_LOCKED*): wait and retry. */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Codes of a storage that cannot take a write now: a full disk, an I/O error, a read-only file or filesystem. */
const STORAGE_CODES = ["SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN"];
const STORAGE_ERRNOS = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS"]);

/**
 * The storage failed a write (SQLITE_FULL, SQLITE_IOERR*, SQLITE_READONLY*, SQLITE_CANTOPEN*, or
 * the filesystem's ENOSPC, EDQUOT, EIO, EROFS): the work was rolled back, and it is waited for
 * like a busy database — it may work once space is freed or the filesystem is writable again.
 */
function isStorageFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return false;
  return STORAGE_ERRNOS.has(code) || STORAGE_CODES.some((c) => code.startsWith(c));
}

/** A write that must wait and run again, whole: the database is busy, or its storage failed (see above). */
export function mustWait(e: unknown): boolean {
  return isBusy(e) || isStorageFailure(e);
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

/**
 * An error for a log line: a database error (SQLite's, or one naming its file already) as one
 * line naming `file` and the remedy (no stack trace); anything else as it is (its stack kept).
 */
export function describeDbFailure(err: unknown, file: string | undefined): unknown {
  const sqlite = String((err as { code?: unknown } | undefined)?.code ?? "").startsWith("SQLITE_");
  return err instanceof DatabaseFileError || sqlite ? dbError(file ?? "the database", err).message : err;
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
  /** The storage failed the last write (full, I/O error, read-only) and none has gone through since. */
  failing?: DatabaseFileError;
  /** Writes that failed so far (busy, storage, anything rolled back): the write gate stops a round at a new one. */
  failures: number;
  /** Told when the open batch commits (resolved) or is rolled back (rejected); made on first ask. */
  waiter?: {
    readonly promise: Promise<void>;
    readonly resolve: () => void;
    readonly reject: (e: unknown) => void;
  };
}

const COMMITTED = Promise.resolve();

/**
 * Resolves once what batchedWrite has written so far is committed; rejects with the error if it
 * is rolled back instead (a full disk at COMMIT: the caller runs its unit again). Call it right
 * after the write, in the same synchronous stretch: it is about the batch open now. One promise
 * per batch, shared by everyone who asks.
 */
export function committed(db: Db): Promise<void> {
  const b = batches.get(db);
  if (!b?.open) return COMMITTED;
  if (!b.waiter) {
    let resolve!: () => void;
    let reject!: (e: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined); // whoever asked awaits it; nobody else must see an unhandled rejection
    b.waiter = { promise, resolve, reject };
  }
  return b.waiter.promise;
}

/** The batch is over: tell whoever waits for it (`err`: it was rolled back). */
function settleWaiter(b: Batch, err?: unknown): void {
  const w = b.waiter;
  if (!w) return;
  b.waiter = undefined;
  if (err === undefined) w.resolve();
  else w.reject(err);
}
const batches = new WeakMap<Db, Batch>();

function batchOf(db: Db): Batch {
  let b = batches.get(db);
  if (!b) {
    b = { open: false, rows: 0, scheduled: false, failures: 0 };
    batches.set(db, b);
  }
  return b;
}

/** What a listener hears when a write of the database failed (see onWriteFailure). */
export interface WriteFailure {
  /** The error, naming the file (its `code` is SQLite's). */
  readonly err: DatabaseFileError;
  /**
   * Rows of the open group commit were rolled back with it: work already reported done (inbound
   * messages, the update state that covers them, entities) is not in the file.
   */
  readonly lostBatch: boolean;
  /** The storage failed (see isStorageFailure), and writes had worked until now: a new episode. */
  readonly first: boolean;
}

interface Listeners {
  readonly failed: Set<(f: WriteFailure) => void>;
  readonly recovered: Set<() => void>;
}
const listenersOf = new WeakMap<Db, Listeners>();
/** Errors whose failure was reported already (an error passes several layers on its way out). */
const reported = new WeakSet<object>();

function listeners(db: Db): Listeners {
  let l = listenersOf.get(db);
  if (!l) listenersOf.set(db, (l = { failed: new Set(), recovered: new Set() }));
  return l;
}

/**
 * Be told when a write of `db` fails: a group commit rolled back (a full disk, an I/O error; the
 * runtime reloads what memory holds ahead of the file and fetches again what was lost), or any
 * write the storage refused (rolled back whole: memory may be ahead of the file). Returns unsubscribe.
 */
export function onWriteFailure(db: Db, listener: (f: WriteFailure) => void): () => void {
  const set = listeners(db).failed;
  set.add(listener);
  return () => set.delete(listener);
}

/** Be told when a write goes through after the storage failed (the episode is over). Returns unsubscribe. */
export function onWriteRecovered(db: Db, listener: () => void): () => void {
  const set = listeners(db).recovered;
  set.add(listener);
  return () => set.delete(listener);
}

/** The storage failure that writes of `db` meet now (none has gone through since), if any. */
export function writeFailing(db: Db): DatabaseFileError | undefined {
  return batches.get(db)?.failing;
}

/** `e` as the error to throw: SQLite's errors name the file (DatabaseFileError keeps SQLite's `code`). */
function named(db: Db, e: unknown): unknown {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? dbError(db.name, e) : e;
}

/** How many writes of `db` have failed so far (a new one since a look: something failed meanwhile). */
export function writeFailures(db: Db): number {
  return batches.get(db)?.failures ?? 0;
}

/** A write failed (rolled back): tell the listeners once, and return what to throw. */
function failed(db: Db, e: unknown, lostBatch: boolean): unknown {
  const err = named(db, e);
  if (typeof err !== "object" || err === null || reported.has(err)) return err;
  reported.add(err);
  batchOf(db).failures++;
  const storage = isStorageFailure(err);
  if (!storage && !lostBatch) return err;
  const b = batchOf(db);
  const first = storage && b.failing === undefined;
  const fileErr = dbError(db.name, err);
  if (storage) b.failing = fileErr;
  for (const l of listenersOf.get(db)?.failed ?? []) l({ err: fileErr, lostBatch, first });
  return err;
}

/** A write went through: an episode of storage failures, if any, is over. */
function succeeded(db: Db, b: Batch): void {
  if (b.failing === undefined) return;
  b.failing = undefined;
  for (const l of listenersOf.get(db)?.recovered ?? []) l();
}

/**
 * The open group commit is gone: a statement outside batchedWrite and transaction() (an
 * autocommit write while the batch was open) failed, and SQLite rolled the whole transaction
 * back with it. What the batch held is lost: the listeners are told, as for a failed COMMIT.
 */
function lostBehindOurBack(db: Db, b: Batch): void {
  const rows = b.rows;
  b.open = false;
  b.rows = 0;
  const e = Object.assign(new Error("the open group commit was rolled back by a failed write"), {
    code: b.failing?.code ?? "SQLITE_ABORT_ROLLBACK",
  });
  settleWaiter(b, failed(db, e, rows > 0));
}

/** Roll the open group commit back (SQLite may have done it already). */
/**
 * A write failed for good (the storage refused it, or the transaction is gone): the batch is rolled
 * back, the failure reported once and handed to whoever waits for the commit; returns the error to throw.
 */
function abandonBatch(db: Db, b: Batch, e: unknown): unknown {
  const lost = b.rows > 0;
  rollbackBatch(db, b);
  const err = failed(db, e, lost);
  settleWaiter(b, err);
  return err;
}

function rollbackBatch(db: Db, b: Batch): void {
  b.open = false;
  b.rows = 0;
  if (db.inTransaction) {
    try {
      db.exec("ROLLBACK");
    } catch {
      /* SQLite rolled it back already */
    }
  }
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
 * retry the whole unit later — and never half-way through it. A storage failure (a full disk,
 * an I/O error) can come at any statement or at COMMIT: the whole batch is rolled back (SQLite
 * may have done so already) and the failure listeners are told what was lost.
 */
export function batchedWrite<T>(db: Db, fn: () => T): T {
  const b = batchOf(db);
  const inTransaction = db.inTransaction;
  // Inside someone else's transaction (or a transaction() joined to the batch): just be part of it.
  if ((inTransaction && !b.open) || b.nested) return fn();
  if (b.open && !inTransaction) lostBehindOurBack(db, b);
  if (!b.open) {
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch (e) {
      throw failed(db, e, false);
    }
    b.open = true;
    b.rows = 0;
  }
  let out: T;
  try {
    out = fn();
  } catch (e) {
    if (isStorageFailure(e) || !db.inTransaction) {
      throw abandonBatch(db, b, e);
    }
    // Nothing of ours is in the batch yet: close it rather than leave a BEGIN dangling.
    if (b.rows === 0) rollbackBatch(db, b);
    throw named(db, e);
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

/** The end-of-turn commit: a failure (a full disk, an I/O error) must not kill the process. */
function commitScheduled(db: Db): void {
  try {
    commitPending(db);
  } catch (e) {
    // The failure listeners were told (the runtime fetches the lost rows again); nobody listening: a bug to see.
    if (!listenersOf.get(db)?.failed.size) throw e;
  }
}

/** Commit the open group commit, if any. A failed COMMIT rolls the batch back (listeners told) and throws. */
export function commitPending(db: Db): void {
  const b = batches.get(db);
  if (!b?.open) return;
  if (!db.inTransaction) {
    lostBehindOurBack(db, b);
    return;
  }
  const rows = b.rows;
  b.open = false;
  b.rows = 0;
  try {
    db.exec("COMMIT");
  } catch (e) {
    rollbackBatch(db, b);
    const err = failed(db, e, rows > 0);
    settleWaiter(b, err);
    throw err;
  }
  settleWaiter(b);
  succeeded(db, b);
}

/**
 * Run `fn` as one durable transaction. With a group commit open (the write lock is ours), `fn`
 * joins it and both commit together — so an addressed message and its task are stored at once,
 * with no moment where another process could take the lock between them. Otherwise it begins
 * IMMEDIATE: a busy database fails at BEGIN, before `fn` ran. A storage failure rolls back `fn`'s
 * work and the batch it joined, whole.
 */
export function transaction<T>(db: Db, fn: () => T): T {
  const b = batchOf(db);
  if (b.open && !b.nested && !db.inTransaction) lostBehindOurBack(db, b);
  if (b.open && !b.nested) {
    let out: T;
    b.nested = true;
    try {
      out = db.transaction(fn)(); // a savepoint inside the batch (nested calls: savepoints inside it)
    } catch (e) {
      b.nested = false;
      if (isStorageFailure(e) || !db.inTransaction) {
        throw abandonBatch(db, b, e);
      }
      commitPending(db); // fn's savepoint is undone; the batch's own rows still go
      throw named(db, e);
    }
    b.nested = false;
    commitPending(db);
    return out;
  }
  if (db.inTransaction) return db.transaction(fn)();
  let out: T;
  try {
    out = db.transaction(fn).immediate();
  } catch (e) {
    throw failed(db, e, false);
  }
  succeeded(db, b);
  return out;
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
