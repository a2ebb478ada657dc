/**
 * Connection health: keeps one account's connection to Telegram alive for as long as the
 * process runs.
 *
 * GramJS reconnects by itself, but only `connectionRetries` times per outage; once those are
 * spent it stops for good and the process stays alive, deaf and mute. Telegram can also keep a
 * connection open that silently stops delivering updates. This watchdog probes the connection
 * (`updates.getState`) on a timer and
 *   - declares it dead after `deadAfterFailures` probes in a row fail as on a dead socket (no
 *     answer in time, not connected) — an RPC error is an answer, so it is alive;
 *   - with `localPts` (the update tracker's pts of the account box, which the persona's own
 *     sends and reads also move): when the server's pts is ahead of ours it fetches the gap
 *     (`onBehind`, the catch-up) first, and declares the connection silent only when the server
 *     is still ahead at a later probe with no update pushed for `silentAfterMs`; a quiet account,
 *     or one whose only activity is the persona's own, is never silent;
 *   - without `localPts`: silent when no update arrived for `silentAfterMs` while the account's
 *     pts moved between two probes;
 * then pauses the persona's work, rebuilds the connection with capped exponential backoff and no
 * limit on attempts, and when it is back resumes and calls `onRestored` (catch-up).
 *
 * A drop is a drop: GramJS's ping loop reports `disconnected` whenever a pong takes over 1 s and
 * `connected` after every pong (its "wake-up" branch runs on every ping; docs/telegram-facts.md),
 * so those events alone mean nothing. The connection counts as broken only when GramJS is really
 * reconnecting (`disconnected` while its sender `isReconnecting`) or when a probe goes unanswered.
 * After a real drop it probes at once and then every `suspectProbeMs` until GramJS says connected
 * again — GramJS tries one reconnect and then stays down, so waiting for the regular probes would
 * leave the account deaf for minutes. Once a broken connection works again (GramJS connected, or
 * a probe answered) it calls `onBehind`: what arrived meanwhile is only in the difference.
 *
 * The watchdog never waits for a catch-up (`onBehind`, `onRestored`): it starts one and goes on
 * probing, so a catch-up that hangs cannot end the probing (catch-ups queue one at a time
 * elsewhere: runtime/catch-up-chain.ts). `updatesTooLong` is not proof of life (the server
 * dropped updates): it does not count as an update seen.
 * Every state change is one log line; every failed attempt one line, without a stack trace.
 */
import type { Logger } from "pino";
import { Api, errors, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { UpdateConnectionState } from "telegram/network/index.js";
import { AccountLostError } from "../../tasks/errors";
import type { Clock } from "../../base/types";
import { accountLost } from "./account-errors";

/** Capped exponential backoff: `firstMs`, doubling, never above `maxMs`. */
export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 60_000 };

/** The wait before retry number `attempt + 1` after `attempt` failures (1-based). */
export function backoffDelay(b: Backoff, attempt: number): number {
  return Math.min(b.maxMs, b.firstMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
}

/** Wait `ms` on `clock`; resolves early (false) when `signal` aborts. */
export function pause(clock: Clock, ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clock.clearTimeout(timer);
      resolve(false);
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** One line about an error: its code or first message line, never a stack. */
export function describeError(e: unknown): string {
  if (e instanceof errors.RPCError) return `${e.errorMessage} (${e.code})`;
  if (e instanceof Error) {
    const code = (e as NodeJS.ErrnoException).code;
    const first = e.message.split("\n")[0]!.slice(0, 200);
    return code && !first.includes(code) ? `${code}: ${first}` : first;
  }
  return String(e).split("\n")[0]!.slice(0, 200);
}

/** What the watchdog needs from a connection. */
export interface WatchedConnection {
  /** A cheap request that needs a working connection (updates.getState), bounded in time. */
  probe(): Promise<{ readonly pts: number }>;
  /** Tear the connection down and bring it up once; throws when it could not. */
  rebuild(): Promise<void>;
  /** True while GramJS itself is reconnecting (its sender's `isReconnecting`); absent: never. */
  reconnecting?(): boolean;
}

export interface ConnectionHealthOptions {
  readonly connection: WatchedConnection;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Probe interval (default 60 s). */
  readonly probeEveryMs?: number;
  /** Probe interval while GramJS reports the connection down (default 5 s; the first probe is at once). */
  readonly suspectProbeMs?: number;
  /** Failed probes in a row that make the connection dead (default 2). */
  readonly deadAfterFailures?: number;
  /** No update for this long while pts moves = silent (default 2 min). */
  readonly silentAfterMs?: number;
  readonly backoff?: Backoff;
  /** The connection went down: stop starting work. */
  readonly onDown?: () => void;
  /** The connection is back: resume work and catch up on what was missed. */
  readonly onRestored?: () => void | Promise<void>;
  /** A probe or rebuild met an account-terminal error: the watchdog stops. */
  readonly onAccountLost?: (e: AccountLostError) => void;
  /** Our pts of the account box (the update tracker's), if known. */
  readonly localPts?: () => number | undefined;
  /** Fetch what the server has and we lack (the catch-up); never run twice at once here. */
  readonly onBehind?: () => Promise<unknown>;
}

export type ConnectionState = "up" | "down" | "stopped";

/** The watchdog for one account's connection (see the file comment). */
export class ConnectionHealth {
  private stateNow: ConnectionState = "stopped";
  private timer: unknown;
  private failures = 0;
  private lastUpdateAt: number;
  /** Last time a probe was answered (an RPC error is an answer too). */
  private lastAnswerAt: number;
  /** Why the connection is down, while it is. */
  private downReason: string | undefined;
  /** pts at the first probe since the last update arrived. */
  private ptsSinceUpdate: number | undefined;
  private checking: Promise<void> | undefined;
  /** The server's pts was ahead of ours at a probe and the gap was fetched since. */
  private behindAt: number | undefined;
  /** GramJS really dropped the connection (it is reconnecting) and has not said connected since. */
  private sawDrop = false;
  /** The connection really broke (a real drop, an unanswered probe) and nothing fetched the gap since. */
  private broke = false;
  private gapRun: Promise<void> | undefined;
  private gapAgain = false;
  private readonly stopSignal = new AbortController();
  private readonly probeEveryMs: number;
  private readonly suspectProbeMs: number;
  private readonly deadAfterFailures: number;
  private readonly silentAfterMs: number;
  private readonly backoff: Backoff;

  constructor(private readonly o: ConnectionHealthOptions) {
    this.probeEveryMs = o.probeEveryMs ?? 60_000;
    this.suspectProbeMs = o.suspectProbeMs ?? 5_000;
    this.deadAfterFailures = o.deadAfterFailures ?? 2;
    this.silentAfterMs = o.silentAfterMs ?? 120_000;
    this.backoff = o.backoff ?? DEFAULT_BACKOFF;
    this.lastUpdateAt = o.clock.now();
    this.lastAnswerAt = this.lastUpdateAt;
  }

  get state(): ConnectionState {
    return this.stateNow;
  }

  /** When Telegram was last heard from: an update, or an answered probe. */
  get lastHeardAt(): number {
    return Math.max(this.lastUpdateAt, this.lastAnswerAt);
  }

  /** Heard from within this long, the connection counts as alive: the probes it takes to call it dead, and one more interval. */
  get windowMs(): number {
    return this.probeEveryMs * (this.deadAfterFailures + 1);
  }

  /** Why the connection is down (while `state` is "down"). */
  get reason(): string | undefined {
    return this.stateNow === "down" ? this.downReason : undefined;
  }

  /** Watch a connection that is up now. */
  start(): void {
    if (this.stateNow !== "stopped" || this.stopSignal.signal.aborted) return;
    this.stateNow = "up";
    this.lastUpdateAt = this.o.clock.now();
    this.schedule();
  }

  /** Stop watching; a reconnect loop in progress gives up at its next step. */
  stop(): void {
    this.stateNow = "stopped";
    this.stopSignal.abort();
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** An update arrived from Telegram: the connection delivers. */
  noteUpdate(): void {
    this.lastUpdateAt = this.o.clock.now();
    this.ptsSinceUpdate = undefined;
    this.behindAt = undefined;
  }

  /**
   * GramJS's own connection state changed (see the file comment). Disconnected while GramJS is
   * reconnecting: a real drop — probe now, and often until it is back. Disconnected otherwise: a
   * slow pong, nothing to do (a pong that never comes makes GramJS reconnect, which is a drop).
   * Connected after a real drop while the watchdog is not rebuilding (GramJS reconnected by
   * itself): fetch what the drop hid. Connected otherwise: nothing.
   */
  noteConnectionState(state: number): void {
    if (state !== UpdateConnectionState.connected) {
      if (!(this.o.connection.reconnecting?.() ?? false)) {
        this.o.logger.debug(
          { component: "connection" },
          "GramJS's ping was slow to answer (not a drop: GramJS is not reconnecting)",
        );
        return;
      }
      const first = !this.sawDrop;
      this.sawDrop = true;
      this.broke = true;
      if (first && this.stateNow === "up") {
        this.o.logger.info(
          { component: "connection" },
          "GramJS reports the connection to Telegram dropped; checking it now",
        );
        this.checkNow();
      }
      return;
    }
    if (!this.sawDrop) return;
    this.sawDrop = false;
    if (this.stateNow !== "up") return; // the watchdog's own rebuild catches up when restored
    this.o.logger.info(
      { component: "connection" },
      "connection to Telegram back (GramJS reconnected); catching up",
    );
    this.broke = false;
    this.fetchGap();
  }

  /**
   * Start `onBehind` (never awaited here: see the file comment); a request while one runs makes
   * it run once more afterwards.
   */
  private fetchGap(): void {
    if (!this.o.onBehind) return;
    if (this.gapRun) {
      this.gapAgain = true;
      return;
    }
    const run = async () => {
      do {
        this.gapAgain = false;
        try {
          await this.o.onBehind!();
        } catch (e) {
          this.o.logger.warn({ component: "connection", err: describeError(e) }, "catching up failed");
        }
      } while (this.gapAgain && this.stateNow === "up");
    };
    this.gapRun = run().finally(() => (this.gapRun = undefined));
  }

  /** Probe now (the timer calls this; so can a caller with a reason to doubt the connection). */
  check(): Promise<void> {
    this.checking ??= this.runCheck().finally(() => (this.checking = undefined));
    return this.checking;
  }

  /** Probe at once; the regular schedule continues after it. */
  private checkNow(): void {
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    void this.check().then(() => this.schedule());
  }

  private schedule(): void {
    if (this.stateNow !== "up") return;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    // While GramJS says the connection is down, probe often: dead after a few seconds, not minutes.
    this.timer = this.o.clock.setTimeout(
      () => {
        this.timer = undefined;
        void this.check().then(() => this.schedule());
      },
      this.sawDrop ? this.suspectProbeMs : this.probeEveryMs,
    );
  }

  private async runCheck(): Promise<void> {
    if (this.stateNow !== "up") return;
    let pts: number;
    try {
      pts = (await this.o.connection.probe()).pts;
    } catch (e) {
      if (this.stateNow !== "up") return;
      const lost = accountLost(e);
      if (lost) return this.lost(lost);
      if (e instanceof errors.RPCError) {
        // Telegram answered (a flood wait, an internal error): the connection works.
        this.failures = 0;
        this.lastAnswerAt = this.o.clock.now();
        return;
      }
      this.failures++;
      this.broke = true; // no answer: whatever was pushed meanwhile may be lost
      this.o.logger.debug(
        { component: "connection", failures: this.failures, err: describeError(e) },
        "connection probe failed",
      );
      if (this.failures >= this.deadAfterFailures)
        await this.reconnect(`no answer to ${this.failures} probes (${describeError(e)})`);
      return;
    }
    if (this.stateNow !== "up") return;
    this.failures = 0;
    this.lastAnswerAt = this.o.clock.now();
    if (this.broke && !this.sawDrop) {
      // A probe went unanswered and now one is answered: fetch what the gap may have hidden.
      this.broke = false;
      this.fetchGap();
      return;
    }
    const quietMs = this.o.clock.now() - this.lastUpdateAt;
    const local = this.o.localPts?.();
    if (local !== undefined) {
      if (pts <= local) {
        this.behindAt = undefined; // we have everything the server has: quiet, not silent
        return;
      }
      if (this.behindAt !== undefined && quietMs >= this.silentAfterMs) {
        return this.reconnect(
          `no updates for ${Math.round(quietMs / 1000)} s while the server's pts (${pts}) stayed ahead of ours (${local}) after a catch-up at ${this.behindAt}`,
        );
      }
      this.behindAt ??= pts;
      this.o.logger.debug(
        { component: "connection", server: pts, local },
        "server's pts ahead of ours; catching up",
      );
      this.fetchGap();
      return;
    }
    if (this.ptsSinceUpdate === undefined) this.ptsSinceUpdate = pts;
    else if (pts > this.ptsSinceUpdate && quietMs >= this.silentAfterMs) {
      await this.reconnect(
        `no updates for ${Math.round(quietMs / 1000)} s while the account's pts moved from ${this.ptsSinceUpdate} to ${pts}`,
      );
    }
  }

  /** Down: pause work, rebuild with capped backoff until it works (or we are stopped), restore. */
  private async reconnect(reason: string): Promise<void> {
    const since = this.o.clock.now();
    this.stateNow = "down";
    this.downReason = reason;
    this.o.logger.warn({ component: "connection", reason }, "connection to Telegram lost; reconnecting");
    this.o.onDown?.();
    for (let attempt = 1; ; attempt++) {
      if (this.stopSignal.signal.aborted) return;
      try {
        await this.o.connection.rebuild();
        await this.o.connection.probe();
        break;
      } catch (e) {
        if (this.stopSignal.signal.aborted) return;
        const lost = accountLost(e);
        if (lost) return this.lost(lost);
        const retryInMs = backoffDelay(this.backoff, attempt);
        this.o.logger.warn(
          { component: "connection", attempt, retryInMs, err: describeError(e) },
          "reconnect failed; retrying",
        );
        if (!(await pause(this.o.clock, retryInMs, this.stopSignal.signal))) return;
      }
    }
    if (this.stopSignal.signal.aborted) return;
    this.stateNow = "up";
    this.failures = 0;
    this.sawDrop = false;
    this.broke = false;
    this.noteUpdate();
    this.o.logger.info(
      { component: "connection", downForMs: this.o.clock.now() - since },
      "connection to Telegram restored",
    );
    // Started, not awaited: the probes go on while it catches up (see the file comment).
    void Promise.resolve()
      .then(() => this.o.onRestored?.())
      .catch((e: unknown) =>
        this.o.logger.error(
          { component: "connection", err: describeError(e) },
          "catching up after reconnect failed",
        ),
      );
  }

  private lost(e: AccountLostError): void {
    this.stateNow = "stopped";
    this.stopSignal.abort();
    this.o.onAccountLost?.(e);
  }
}

/**
 * Tell `health` about every update `client` receives, and about GramJS's own connection-state
 * events. Returns the function that stops it.
 */
export function watchUpdates(
  client: TelegramClient,
  health: Pick<ConnectionHealth, "noteUpdate" | "noteConnectionState">,
): () => void {
  const raw = new Raw({});
  const saw = (u: unknown) => {
    if (u instanceof UpdateConnectionState) health.noteConnectionState(u.state);
    // "Too many updates, call getDifference": the server dropped what it should have pushed.
    else if (!(u instanceof Api.UpdatesTooLong)) health.noteUpdate();
  };
  client.addEventHandler(saw, raw);
  return () => client.removeEventHandler(saw, raw);
}
