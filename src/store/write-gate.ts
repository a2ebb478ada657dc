/**
 * The inbound path's way through a busy database. Each message (and each update's entities) is
 * one unit of work that writes; a unit that meets SQLITE_BUSY — another process holds the write
 * lock — has changed nothing (batches and transactions begin IMMEDIATE: store/db.ts), so it is
 * queued and run again later, and every unit that arrives while one waits queues behind it, in
 * arrival order. The queue is retried with a capped backoff on the runtime's clock, never by
 * blocking the event loop longer than SQLite's short busy timeout. Nothing is lost: a unit
 * waiting in the queue has not reported back, so the update state does not move past it (and
 * a process that dies meanwhile fetches it again by catch-up).
 *
 * One warning line when the database turns busy, one when the waiting units are through, with
 * how long and how many. No stack trace: a busy database is an expected condition.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import { isBusy } from "./db";

/** First pause before the queue is retried… */
const GATE_RETRY_FIRST_MS = 250;
/** …doubling up to this. */
const GATE_RETRY_MAX_MS = 5_000;

/** A unit of work; `retry` is true when this very unit ran before and met a busy database. */
export type GateWork<T> = (o: { readonly retry: boolean }) => Promise<T> | T;

interface Waiting {
  readonly work: GateWork<unknown>;
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
  private draining = false;
  private closed = false;

  constructor(
    private readonly o: {
      readonly clock: Clock;
      readonly logger: Logger;
      /** The database file, for the log lines. */
      readonly file: string;
    },
  ) {}

  /** Units waiting for the database now. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Run `work` now, or after the units already waiting; a busy database makes it wait too. */
  async run<T>(work: GateWork<T>): Promise<T> {
    if (this.closed) throw new GateClosedError();
    if (this.queue.length === 0) {
      try {
        return await work({ retry: false });
      } catch (e) {
        if (!isBusy(e) || this.closed) throw e;
        return this.enqueue(work, true, e);
      }
    }
    return this.enqueue(work, false, undefined);
  }

  /** `work` already ran once and met a busy database (`busy`): it waits, behind whatever waits already. */
  retry<T>(work: GateWork<T>, busy: unknown): Promise<T> {
    if (this.closed) return Promise.reject(new GateClosedError());
    return this.enqueue(work, true, busy);
  }

  /** Stop: waiting units are rejected (not run; what they carried comes again by catch-up). */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    for (const w of this.queue.splice(0)) w.reject(new GateClosedError());
  }

  private enqueue<T>(work: GateWork<T>, retried: boolean, busy: unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        work: work as GateWork<unknown>,
        retried,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.waitedUnits++;
      if (this.since === undefined) {
        this.since = this.o.clock.now();
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

  /** Run the waiting units in order; stop at the first that meets a busy database again. */
  private async drain(): Promise<void> {
    if (this.draining || this.closed) return;
    this.draining = true;
    try {
      while (this.queue.length > 0 && !this.closed) {
        const head = this.queue[0]!;
        try {
          const value = await head.work({ retry: head.retried });
          this.queue.shift();
          head.resolve(value);
        } catch (e) {
          if (isBusy(e)) {
            head.retried = true;
            return;
          }
          this.queue.shift();
          head.reject(e);
        }
      }
      if (this.queue.length === 0 && this.since !== undefined) {
        const ms = this.o.clock.now() - this.since;
        this.o.logger.warn(
          { component: "store", file: this.o.file, waitedMs: ms, units: this.waitedUnits },
          `${this.o.file} is free again after ${(ms / 1000).toFixed(1)} s; ${this.waitedUnits} waiting update${this.waitedUnits === 1 ? "" : "s"} stored in order`,
        );
        this.since = undefined;
        this.waitedUnits = 0;
        this.delayMs = 0;
      }
    } finally {
      this.draining = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
