/**
 * One persona's side of a disk that refuses writes. store/db.ts reports every failed write — a
 * full disk, an I/O error, a read-only file or filesystem — after rolling it back whole; here
 * memory that may be ahead of the file is put back: the update state, entities and chats are
 * read again and the update tracker falls back to the stored pts (what a rolled-back group
 * commit held is fetched again by a difference), and the scheduler's open tasks become the
 * stored rows again. Nothing needs a restart: incoming messages wait in order in the write gate
 * (store/write-gate.ts), task outcomes in the scheduler, and both are written as soon as the
 * disk takes them.
 *
 * The operator is told once per episode: one error line when writes start failing (the file,
 * the error, the free space on its filesystem, what waits) and one line when they work again
 * (how long, how many messages waited). Episodes are counted (`database_write_failures_total`),
 * `database_write_failing` is 1 meanwhile, and /readyz fails (the process's database watch,
 * store/database-watch.ts, reads the same state).
 */
import { statfsSync } from "node:fs";
import { dirname } from "node:path";
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { formatSize } from "../base/media-descriptor";
import { metrics, watchWrites } from "../metrics/metrics";
import { onWriteFailure, onWriteRecovered, writeFailing, type Db } from "../store/db";
import type { ChatStore } from "../store/chats";
import type { EntityStore } from "../store/entities";
import { ACCOUNT_BOX, type UpdateStateStore } from "../store/update-state";
import type { WriteGate } from "../store/write-gate";
import type { Scheduler } from "../tasks/scheduler";
import type { UpdateTracker } from "../telegram/inbound/update-tracker";

export interface StorageWatchOptions {
  readonly db: Db;
  readonly agent: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly updateState: UpdateStateStore;
  readonly entities: EntityStore;
  readonly chats: ChatStore;
  readonly tracker: UpdateTracker;
  readonly gate: WriteGate;
  readonly scheduler: () => Scheduler;
}

/** How often the end of an episode is looked for once writes work again (what waited may still be going in). */
const END_CHECK_MS = 1_000;

/** Free bytes for an unprivileged writer on the filesystem holding `file`; undefined when that cannot be told. */
function freeBytes(file: string): number | undefined {
  try {
    const s = statfsSync(dirname(file));
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

/** Start watching; returns the way to stop. */
export function watchStorage(o: StorageWatchOptions): () => void {
  const file = o.db.name;
  let since: number | undefined;
  let waitedBefore = 0;
  let stopped = false;
  const offFailure = onWriteFailure(o.db, (f) => {
    // What arrives from now on waits behind what failed (in arrival order), until writes work.
    if (writeFailing(o.db) !== undefined) o.gate.hold();
    // Memory must not be ahead of the file, or the update state would later be persisted past
    // what was lost (the tracker then fetches it again from the stored pts).
    o.updateState.reload();
    o.entities.reload();
    o.chats.forgetCaches();
    if (f.lostBatch)
      o.tracker.resync((box) =>
        box === ACCOUNT_BOX ? o.updateState.account()?.pts : o.updateState.channelPts(box),
      );
    // After the failing call has unwound (the scheduler's own writes put memory back on the spot).
    queueMicrotask(() => {
      if (!stopped) o.scheduler().resync();
    });
    if (writeFailing(o.db) === undefined) {
      // Not the storage (a group commit rolled back for another reason): said every time.
      o.logger.error(
        { component: "store", file, code: f.err.code },
        `could not save incoming messages: ${f.err.message}; they are fetched again once the database works`,
      );
      return;
    }
    if (since !== undefined) return; // the episode was told already
    since = o.clock.now();
    waitedBefore = o.gate.waited;
    metrics.databaseWriteFailures.inc({ agent: o.agent });
    const err = f.err;
    // Told once the failing unit has joined the queue, so the line says what waits.
    setImmediate(() => {
      if (stopped || since === undefined) return;
      const free = freeBytes(file);
      const messages = o.gate.waiting;
      const outcomes = o.scheduler().outcomesWaiting;
      o.logger.error(
        {
          component: "store",
          file,
          code: err.code,
          freeBytes: free,
          waitingMessages: messages,
          waitingOutcomes: outcomes,
        },
        `${file} refuses writes: ${err.detail}${free !== undefined ? `; ${formatSize(free)} free on its filesystem` : ""}. ` +
          `Waiting: ${messages} incoming update${messages === 1 ? "" : "s"} (in order; later ones queue behind them) and ${outcomes} task outcome${outcomes === 1 ? "" : "s"}; ` +
          `no new task starts. All is stored and answered once it takes writes again, without a restart: ${err.remedy}`,
      );
    });
  });
  // The episode is over once writes work and everything that waited is written: a write that
  // happens to fit (an update in place, a log that can reuse its space) is not the end of it.
  let endTimer: unknown;
  const tryEnd = () => {
    endTimer = undefined;
    if (stopped || since === undefined || writeFailing(o.db) !== undefined) return;
    if (!o.gate.open || o.scheduler().outcomesWaiting > 0) {
      endTimer = o.clock.setTimeout(tryEnd, END_CHECK_MS);
      return;
    }
    const ms = o.clock.now() - since;
    const waited = o.gate.waited - waitedBefore;
    since = undefined;
    o.logger.warn(
      { component: "store", file, failedMs: ms, waitedMessages: waited },
      `${file} takes writes again after ${(ms / 1000).toFixed(1)} s; the ${waited} incoming update${waited === 1 ? "" : "s"} that waited ${waited === 1 ? "is" : "are"} stored, in order`,
    );
  };
  const offRecovered = onWriteRecovered(o.db, () => {
    if (since !== undefined && endTimer === undefined) endTimer = o.clock.setTimeout(tryEnd, 0);
  });
  const unwatch = watchWrites(o.agent, () => since !== undefined);
  return () => {
    stopped = true;
    if (endTimer !== undefined) o.clock.clearTimeout(endTimer);
    offFailure();
    offRecovered();
    unwatch();
  };
}

/**
 * The persona stops (Ctrl-C, SIGTERM) while incoming updates wait for the database — its disk
 * refuses writes, or another process holds it: they are not stored (their update state was not
 * confirmed, so the next start fetches them from Telegram). Said once, naming the file and what
 * to do before starting again, instead of one error per waiting update. Call before the write
 * gate closes.
 */
export function sayStopping(o: { readonly db: Db; readonly gate: WriteGate; readonly logger: Logger }): void {
  const failing = writeFailing(o.db);
  const n = o.gate.waiting;
  if (failing === undefined && n === 0) return;
  const file = o.db.name;
  const updates = `${n} incoming update${n === 1 ? " was" : "s were"} not stored; the next start fetches ${n === 1 ? "it" : "them"} from Telegram`;
  if (failing === undefined) {
    o.logger.warn(
      { component: "store", file, waitingMessages: n },
      `stopping while ${file} is busy (another process holds its write lock): ${updates}`,
    );
    return;
  }
  const full = failing.code?.startsWith("SQLITE_FULL") || failing.code === "ENOSPC";
  const free = freeBytes(file);
  const todo = full
    ? `Free some space on its filesystem${free !== undefined ? ` (${formatSize(free)} free now)` : ""} before starting again`
    : `Before starting again: ${failing.remedy}`;
  o.logger.error(
    { component: "store", file, code: failing.code, freeBytes: free, waitingMessages: n },
    `stopping while ${file} refuses writes (${failing.detail.replace(/ \(SQLITE_\w+\)$/, "")}): ${updates}. ${todo}`,
  );
}
