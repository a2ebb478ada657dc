/**
 * A console action on a database another program holds (an sqlite3 shell in a transaction, a
 * backup tool, a second process): the action's write is tried without SQLite's blocking busy
 * wait (which would hold up the whole process, personas included), and again a few times over
 * about three seconds while the lock is held. If it is still held, or the disk refuses writes,
 * the action answers 503 with the reason (and Retry-After) instead of a bare 500 after a second.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { isBusy, mustWait, withoutBusyWait, type Db } from "../store/db";

/** Waits between the tries (ms): about three seconds in all. */
const RETRY_MS = [100, 200, 400, 800, 1600];

export type Writable<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly reason: string; readonly retryAfterS: number };

/** Run `work` (synchronous, writing to `db`) as soon as the database takes the write; see the file comment. */
export async function whenWritable<T>(db: Db, work: () => T): Promise<Writable<T>> {
  let last: unknown;
  for (let attempt = 0; attempt <= RETRY_MS.length; attempt++) {
    if (attempt > 0) await sleep(RETRY_MS[attempt - 1]!);
    try {
      return { ok: true, value: withoutBusyWait(db, work) };
    } catch (e) {
      if (!mustWait(e)) throw e;
      last = e;
      if (!isBusy(e)) break; // a full disk, an I/O error: not a matter of seconds
    }
  }
  return {
    ok: false,
    retryAfterS: 5,
    reason: isBusy(last)
      ? `the database ${db.name} is busy: another program holds its write lock (an sqlite3 shell, a backup tool, a second npm start). Tried for 3 s; nothing was changed. Try again in a moment, or end that program's transaction`
      : `the database ${db.name} refuses writes (${String((last as { message?: unknown })?.message ?? last).split("\n")[0]}); nothing was changed. Free some space (or fix the disk), then try again`,
  };
}
