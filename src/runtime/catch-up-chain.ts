/**
 * Catch-ups run one at a time: a full one (on start, after a reconnect, whenever the caller knows
 * the connection was dead) and the gap fills the update tracker asks for while running, in the
 * order they were asked.
 */
import type { Logger } from "pino";
import { metrics } from "../metrics/metrics";
import { describeDbFailure } from "../store/db";
import { ACCOUNT_BOX } from "../store/update-state";
import { GateClosedError } from "../store/write-gate";
import { HeldError, type CatchUp, type CatchUpSummary } from "../telegram/inbound/catch-up";
import { PausedError } from "../telegram/inbound/read-calls";
import { catchUpProgress } from "./catch-up-progress";

export class CatchUpChain {
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly o: {
      readonly engine: CatchUp;
      readonly agent: string;
      readonly logger: Logger;
      /** Told what each full catch-up did, or why it failed (the console's activity). */
      readonly onCaughtUp?: (s: CatchUpSummary) => void;
      readonly onFailed?: (err: unknown) => void;
      /** The database file, named by a database error. */
      readonly dbFile?: string;
    },
  ) {}

  /** The catch-up or gap fill running now (or the last one, settled); never rejects. */
  get settled(): Promise<unknown> {
    return this.chain;
  }

  /**
   * Fetch what was missed and hand it to the inbound pipeline. Resolves with what it did (also
   * logged as one line).
   */
  catchUp(): Promise<CatchUpSummary> {
    const run = this.chain.then(async () => {
      const progress = catchUpProgress();
      try {
        const s = await this.o.engine.run();
        const agent = this.o.agent;
        metrics.catchUpRuns.inc({ agent });
        metrics.catchUpRequests.inc({ agent }, s.requests);
        metrics.catchUpMessages.inc({ agent }, s.messages);
        this.o.logger.info(
          {
            component: "catch-up",
            messages: s.messages,
            chats: s.chats,
            requests: s.requests,
            seconds: Math.round(s.ms / 100) / 10,
          },
          `caught up: ${s.messages} messages in ${s.chats} chats, ${s.requests} requests, ${(s.ms / 1000).toFixed(1)} s`,
        );
        this.o.onCaughtUp?.(s);
        return s;
      } catch (err) {
        this.o.onFailed?.(err);
        throw err;
      } finally {
        progress.stop();
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** A gap seen while running: the difference of that box only (nothing once stopped). */
  fillGap(box: string): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        if (box === ACCOUNT_BOX) await this.o.engine.accountOnly();
        else await this.o.engine.channelOnly(box);
      } catch (err) {
        // Retried by the tracker; a method held back by a flood wait made no request (logged once).
        // Stopping while updates waited for the database: said once by the runtime (sayStopping).
        const paused =
          (err instanceof PausedError && err.cause === undefined) ||
          err instanceof HeldError ||
          err instanceof GateClosedError;
        this.o.logger[paused ? "debug" : "warn"](
          {
            component: "catch-up",
            box: box || "account",
            err: String(describeDbFailure(err, this.o.dbFile)),
          },
          "filling an update gap failed; retried later",
        );
      }
    });
    this.chain = run;
    return run;
  }

  /** No more gap fills (the runtime stops or dies). */
  stop(): void {
    this.stopped = true;
  }
}
