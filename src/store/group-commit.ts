import type Database from "better-sqlite3";
import { isStorageFailure } from "./db-errors";
import { hasFailureListeners, named, writeFailed, writeFailing, writeSucceeded } from "./write-failures";

type Db = Database.Database;

/** Most rows one group commit may hold before it is committed on the spot. */
const MAX_BATCH = 256;

interface Batch {
  /** True while a transaction opened by batchedWrite is open. */
  open: boolean;
  rows: number;
  scheduled: boolean;
  /** True while a `transaction()` runs inside the open batch (it commits the batch when it ends). */
  nested?: boolean;
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
    b = { open: false, rows: 0, scheduled: false };
    batches.set(db, b);
  }
  return b;
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
    code: writeFailing(db)?.code ?? "SQLITE_ABORT_ROLLBACK",
  });
  settleWaiter(b, writeFailed(db, e, rows > 0));
}

/**
 * A write failed for good (the storage refused it, or the transaction is gone): the batch is rolled
 * back, the failure reported once and handed to whoever waits for the commit; returns the error to throw.
 */
function abandonBatch(db: Db, b: Batch, e: unknown): unknown {
  const lost = b.rows > 0;
  rollbackBatch(db, b);
  const err = writeFailed(db, e, lost);
  settleWaiter(b, err);
  return err;
}

/** Roll the open group commit back (SQLite may have done it already). */
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
      throw writeFailed(db, e, false);
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
    if (!hasFailureListeners(db)) throw e;
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
    const err = writeFailed(db, e, rows > 0);
    settleWaiter(b, err);
    throw err;
  }
  settleWaiter(b);
  writeSucceeded(db);
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
    throw writeFailed(db, e, false);
  }
  writeSucceeded(db);
  return out;
}
