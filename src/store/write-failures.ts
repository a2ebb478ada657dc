import type Database from "better-sqlite3";
import { dbError, isStorageFailure, type DatabaseFileError } from "./db-errors";

type Db = Database.Database;

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

/** How the writes of one database fare, and who is told. */
interface WriteHealth {
  /** The storage failed the last write (full, I/O error, read-only) and none has gone through since. */
  failing?: DatabaseFileError;
  /** Writes that failed so far (busy, storage, anything rolled back): the write gate stops a round at a new one. */
  failures: number;
  readonly failed: Set<(f: WriteFailure) => void>;
  readonly recovered: Set<() => void>;
}
const healthOf = new WeakMap<Db, WriteHealth>();
/** Errors whose failure was reported already (an error passes several layers on its way out). */
const reported = new WeakSet<object>();

function health(db: Db): WriteHealth {
  let h = healthOf.get(db);
  if (!h) healthOf.set(db, (h = { failures: 0, failed: new Set(), recovered: new Set() }));
  return h;
}

/**
 * Be told when a write of `db` fails: a group commit rolled back (a full disk, an I/O error; the
 * runtime reloads what memory holds ahead of the file and fetches again what was lost), or any
 * write the storage refused (rolled back whole: memory may be ahead of the file). Returns unsubscribe.
 */
export function onWriteFailure(db: Db, listener: (f: WriteFailure) => void): () => void {
  const set = health(db).failed;
  set.add(listener);
  return () => set.delete(listener);
}

/** Be told when a write goes through after the storage failed (the episode is over). Returns unsubscribe. */
export function onWriteRecovered(db: Db, listener: () => void): () => void {
  const set = health(db).recovered;
  set.add(listener);
  return () => set.delete(listener);
}

/** Whether anyone listens for failed writes of `db` (the end-of-turn commit's failure is theirs to handle). */
export function hasFailureListeners(db: Db): boolean {
  return (healthOf.get(db)?.failed.size ?? 0) > 0;
}

/** The storage failure that writes of `db` meet now (none has gone through since), if any. */
export function writeFailing(db: Db): DatabaseFileError | undefined {
  return healthOf.get(db)?.failing;
}

/** How many writes of `db` have failed so far (a new one since a look: something failed meanwhile). */
export function writeFailures(db: Db): number {
  return healthOf.get(db)?.failures ?? 0;
}

/** `e` as the error to throw: SQLite's errors name the file (DatabaseFileError keeps SQLite's `code`). */
export function named(db: Db, e: unknown): unknown {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? dbError(db.name, e) : e;
}

/** A write failed (rolled back): tell the listeners once, and return what to throw. */
export function writeFailed(db: Db, e: unknown, lostBatch: boolean): unknown {
  const err = named(db, e);
  if (typeof err !== "object" || err === null || reported.has(err)) return err;
  reported.add(err);
  const h = health(db);
  h.failures++;
  const storage = isStorageFailure(err);
  if (!storage && !lostBatch) return err;
  const first = storage && h.failing === undefined;
  const fileErr = dbError(db.name, err);
  if (storage) h.failing = fileErr;
  for (const l of h.failed) l({ err: fileErr, lostBatch, first });
  return err;
}

/** A write went through: an episode of storage failures, if any, is over. */
export function writeSucceeded(db: Db): void {
  const h = healthOf.get(db);
  if (h?.failing === undefined) return;
  h.failing = undefined;
  for (const l of h.recovered) l();
}
