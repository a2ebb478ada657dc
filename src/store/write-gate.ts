/**
 * The inbound path's way through a busy database or a failing disk. Each message (and each
 * update's entities) is one unit of work that writes; a unit that meets SQLITE_BUSY — another
 * process holds the write lock — has changed nothing (batches and transactions begin IMMEDIATE:
 * store/db.ts), and one the storage refused (a full disk, an I/O error, a read-only file) was
 * rolled back whole (store/db.ts), so it is queued and run again later, and every unit that
 * arrives while one waits queues behind it, in arrival order. The queue is retried with a capped
 * backoff on the runtime's clock, never by blocking the event loop longer than SQLite's short
 * busy timeout. Nothing is lost: a unit waiting in the queue has not reported back, so the
 * update state does not move past it (and a process that dies meanwhile fetches it again by
 * catch-up).
 *
 * A busy spell: one warning line when it starts, one when the waiting units are through, with
 * how long and how many. No stack trace: a busy database is an expected condition. A spell of
 * storage failures is told by the runtime's storage watch (runtime/storage-watch.ts: one line
 * per episode, with the free space), so the gate only counts what waited.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import { isBusy, mustWait } from "./db";

/** First pause before the queue is retried… */
const GATE_RETRY_FIRST_MS = 250;
/** …doubling up to this. */
const GATE_RETRY_MAX_MS = 5_000;

/** A unit of work; `retry` is true when this very unit ran before and met a busy database or a failed write. */
export type GateWork<T> = (o: { readonly retry: boolean }) => Promise<T> | T;

interface Waiting {
  readonly work: GateWork<unknown>;
  /** Its place in arrival order (see arrive()): the queue is kept in this order. */
  readonly seq: number;
  retried: boolean;
  readonly resolve: (v: unknown) => void;
  readonly reject: (e: unknown) => void;
}

/** The database is gone for this runtime (it stopped): the unit was not run. */
export class GateClosedError extends Error {
  constructor() {
    super("stopped before the database could take it");
    this.name = "GateClosedError";
  }
}

export class WriteGate {
  private readonly queue: Waiting[] = [];
  private timer: unknown;
  private delayMs = 0;
  private since: number | undefined;
  private waitedUnits = 0;
  /** The spell began with a busy database (it has its own warning lines), not a storage failure. */
  private busySpell = false;
  /** Units that ever waited here (the storage watch reports how many an episode held). */
  private waitedTotal = 0;
  /** Arrival numbers handed out so far. */
  private seq = 0;
  /** A write failed: what arrives queues, even before the failed units have joined the queue. */
  private held = false;
  private draining = false;
  private closed = false;

  constructor(
    private readonly o: {
      readonly clock: Clock;
      readonly logger: Logger;
      /** The database file, for the log lines. */
      readonly file: string;
      /**
       * How many writes of the database have failed so far (store/db.ts writeFailures). With it,
       * a retry runs the waiting units together — one group commit — and stops starting more at
       * the first new failure; without it, one unit at a time.
       */
      readonly failures?: () => number;
    },
  ) {}

  /** Units waiting for the database now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Units that have waited here since the gate was made (stored since, or waiting still). */
  get waited(): number {
    return this.waitedTotal;
  }

  /** Nothing waits and no failure holds the gate: a unit may run directly (the hot path). */
  get open(): boolean {
    return this.queue.length === 0 && !this.held;
  }

  /**
   * A unit arrives: its place in arrival order. A unit that ran directly and failed joins the
   * queue at this place, ahead of whatever arrived after it meanwhile (handlers run concurrently).
   */
  arrive(): number {
    return ++this.seq;
  }

  /** Run `work` now, or after the units already waiting; a busy database or a failing disk makes it wait too. */
  async run<T>(work: GateWork<T>, seq = this.arrive()): Promise<T> {
    if (this.closed) throw new GateClosedError();
    if (this.open) {
      try {
        return await work({ retry: false });
      } catch (e) {
        if (!mustWait(e) || this.closed) throw e;
        return this.enqueue(work, true, e, seq);
      }
    }
    return this.enqueue(work, false, undefined, seq);
  }

  /**
   * `work` already ran once (arrived as `seq`) and met a busy database or a failed write (`busy`):
   * it waits, in its arrival place.
   */
  retry<T>(work: GateWork<T>, busy: unknown, seq = this.arrive()): Promise<T> {
    if (this.closed) return Promise.reject(new GateClosedError());
    return this.enqueue(work, true, busy, seq);
  }

  /**
   * A write of the database failed (told synchronously: runtime/storage-watch.ts): from now on
   * what arrives waits, until the queue has run through — so nothing that arrives after a failed
   * unit is stored before it, though the failed unit joins the queue only once its error has
   * travelled back. (Storage failures are told by the storage watch, not here.)
   */
  hold(): void {
    if (this.closed || this.held) return;
    this.held = true;
    if (this.since === undefined) {
      this.since = this.o.clock.now();
      this.busySpell = false;
    }
    this.schedule();
  }

  /** Stop: waiting units are rejected (not run; what they carried comes again by catch-up). */
  close(): void {
    this.closed = true;
    this.held = false;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.queue.splice(0)) w.reject(new GateClosedError());
  }

  private enqueue<T>(work: GateWork<T>, retried: boolean, busy: unknown, seq: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const unit: Waiting = {
        work: work as GateWork<unknown>,
        seq,
        retried,
        resolve: resolve as (v: unknown) => void,
        reject,
      };
      // In arrival order: almost always the end; a failed unit whose error came back late goes before later arrivals.
      let i = this.queue.length;
      while (i > 0 && this.queue[i - 1]!.seq > seq) i--;
      this.queue.splice(i, 0, unit);
      this.waitedUnits++;
      this.waitedTotal++;
      if (this.since === undefined) {
        this.since = this.o.clock.now();
        this.busySpell = isBusy(busy);
        if (this.busySpell)
          this.o.logger.warn(
            { component: "store", file: this.o.file, err: errorMessage(busy) },
            `${this.o.file} is busy (another process holds its write lock); incoming messages wait in order and are stored when it is free`,
          );
      }
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer !== undefined || this.draining || this.closed) return;
    this.delayMs = this.delayMs === 0 ? GATE_RETRY_FIRST_MS : Math.min(GATE_RETRY_MAX_MS, this.delayMs * 2);
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      void this.drain();
    }, this.delayMs);
  }

  /**
   * Run the waiting units in order, in rounds: each round starts the units in the queue one
   * after another (their writes join one group commit) and stops starting them at the first
   * write that fails; it ends when they have all settled. A unit that met a busy database or a
   * failed write again stays (in its place) and the queue is tried again later.
   */
  private async drain(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const failures = this.o.failures;
        const mark = failures?.();
        const round: { unit: Waiting; done: Promise<unknown> }[] = [];
        for (const unit of [...this.queue]) {
          if (round.length > 0 && (failures === undefined || failures() !== mark)) break;
          round.push({ unit, done: this.start(unit) });
        }
        let again = false;
        for (const { unit, done } of round) {
          try {
            const value = await done;
            this.remove(unit);
            unit.resolve(value);
          } catch (e) {
            if (mustWait(e) && !this.closed) {
              unit.retried = true;
              again = true;
              continue;
            }
            this.remove(unit);
            unit.reject(e);
          }
        }
        if (again) return;
      }
      if (this.queue.length === 0 && !this.closed) {
        this.held = false;
        if (this.since !== undefined) {
          const ms = this.o.clock.now() - this.since;
          if (this.busySpell)
            this.o.logger.warn(
              { component: "store", file: this.o.file, waitedMs: ms, units: this.waitedUnits },
              `${this.o.file} is free again after ${(ms / 1000).toFixed(1)} s; ${this.waitedUnits} waiting update${this.waitedUnits === 1 ? "" : "s"} stored in order`,
            );
          this.since = undefined;
          this.waitedUnits = 0;
          this.delayMs = 0;
        }
      }
    } finally {
      this.draining = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  /** Start a unit now: its synchronous part (its write) runs before the next unit starts. */
  private async start(unit: Waiting): Promise<unknown> {
    return unit.work({ retry: unit.retried });
  }

  /** Take a unit that ran out of the queue (one that came back late may have gone in before it meanwhile). */
  private remove(unit: Waiting): void {
    const i = this.queue.indexOf(unit);
    if (i >= 0) this.queue.splice(i, 1);
  }
}
