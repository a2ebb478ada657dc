/**
 * One account's link to Telegram: the GramJS client built from a saved session, connected with
 * retries (capped backoff, one clean log line per attempt, abortable at any moment), and the
 * probe / rebuild operations the connection watchdog uses.
 */
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { Api, TelegramClient } from "telegram";
import type { StringSession } from "telegram/sessions/index.js";
import { PeerCacheSession } from "./session";
import type { TelegramCredentials } from "../../config/env";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";
import type { Clock } from "../../base/types";
import { accountLost } from "./account-errors";
import type { ClientFactory } from "./client";
import {
  backoffDelay,
  DEFAULT_BACKOFF,
  describeError,
  pause,
  type Backoff,
  type WatchedConnection,
} from "./connection-health";
import { releaseExportedSenders } from "./exported-senders";
import { GramJsPinoLogger } from "./gramjs-logger";

/** The session file cannot be used (unreadable, not a session string). Logging in again fixes it. */
class SessionFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SessionFileError";
  }
}

/** The caller gave up (a shutdown signal) before the link was up. */
export class ConnectAbortedError extends Error {
  constructor() {
    super("connecting was interrupted");
    this.name = "ConnectAbortedError";
  }
}

export interface AccountLinkOptions {
  readonly sessionFile: string;
  readonly credentials: TelegramCredentials;
  /** Logger for this account (carries `agent`). */
  readonly logger: Logger;
  readonly clock: Clock;
  readonly clientFactory?: ClientFactory;
  readonly backoff?: Backoff;
  /** Bound on one connect attempt (default 15 s, real time). */
  readonly connectTimeoutMs?: number;
  /** Bound on a probe or the requests of a connect attempt (default 10 s, real time). */
  readonly requestTimeoutMs?: number;
}

const realClient: ClientFactory = (session, apiId, apiHash, options) =>
  new TelegramClient(session, apiId, apiHash, options);

/** See the file comment. */
export class AccountLink implements WatchedConnection {
  readonly client: TelegramClient;
  private lastGramJsError: unknown;
  private closed = false;
  private readonly connectTimeoutMs: number;
  private readonly requestTimeoutMs: number;

  constructor(private readonly o: AccountLinkOptions) {
    let session: StringSession;
    try {
      session = new PeerCacheSession(readFileSync(o.sessionFile, "utf8").trim());
    } catch (e) {
      // Never echo the file's content: it is the account's key.
      throw new SessionFileError(`${o.sessionFile}: not a usable session (${describeError(e)})`);
    }
    this.connectTimeoutMs = o.connectTimeoutMs ?? 15_000;
    this.requestTimeoutMs = o.requestTimeoutMs ?? 10_000;
    this.client = (o.clientFactory ?? realClient)(session, o.credentials.apiId, o.credentials.apiHash, {
      baseLogger: new GramJsPinoLogger(o.logger),
      // Every flood wait is thrown, never slept on inside GramJS, so the scheduler can park the task.
      floodSleepThreshold: 0,
      // The account's device list names this project and its version, not the machine's OS.
      ...o.credentials.identity,
      // One attempt per connect(): the retries, their backoff and their log lines are ours, and
      // after an outage the watchdog (connection-health.ts) keeps reconnecting without a cap.
      connectionRetries: 1,
      retryDelay: 0,
      autoReconnect: true,
    });
    // GramJS hands errors it meets in its loops here (and would print them otherwise).
    this.client.onError = async (e: Error) => {
      this.lastGramJsError = e;
      o.logger.debug({ component: "gramjs", err: describeError(e) }, "GramJS reported an error");
    };
  }

  /**
   * Connect, check the session is authorized, learn the account's id. Network failures are
   * retried forever with capped backoff, each one logged as one line; an account-terminal
   * error throws AccountLostError; `signal` aborting throws ConnectAbortedError at once.
   */
  async connect(signal: AbortSignal): Promise<{ selfId: string; selfUsername?: string }> {
    const backoff = this.o.backoff ?? DEFAULT_BACKOFF;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) throw new ConnectAbortedError();
      try {
        const self = await abortable(this.connectOnce(attempt > 1), signal);
        if (attempt > 1)
          this.o.logger.info({ component: "connection", attempts: attempt }, "connected to Telegram");
        return self;
      } catch (e) {
        if (signal.aborted || e instanceof ConnectAbortedError) throw new ConnectAbortedError();
        const lost = accountLost(e);
        if (lost) throw lost;
        const retryInMs = backoffDelay(backoff, attempt);
        this.o.logger.warn(
          { component: "connection", attempt, retryInMs, err: describeError(e) },
          "cannot connect to Telegram; retrying",
        );
        if (!(await pause(this.o.clock, retryInMs, signal))) throw new ConnectAbortedError();
      }
    }
  }

  /** updates.getState, bounded: the account's pts, or the error. */
  async probe(): Promise<{ pts: number }> {
    const state = await this.bounded(
      this.client.invoke(new Api.updates.GetState()),
      "updates.GetState",
      this.requestTimeoutMs,
    );
    return { pts: state.pts };
  }

  /**
   * True while GramJS reconnects by itself (its sender's `isReconnecting`: its ping went
   * unanswered, or the socket broke). A slow ping alone does not set it.
   */
  reconnecting(): boolean {
    return (
      (this.client as unknown as { _sender?: { isReconnecting?: boolean } })._sender?.isReconnecting === true
    );
  }

  /** Drop the connection and connect once more (the watchdog's rebuild). */
  async rebuild(): Promise<void> {
    await this.dropConnection();
    await this.connectTransport();
  }

  /** Disconnect for good (GramJS's update loop ends too). Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.bounded(
      Promise.all([releaseExportedSenders(this.client), this.client.destroy()]),
      "disconnect",
      5_000,
    ).catch((e: unknown) =>
      this.o.logger.debug(
        { component: "connection", err: describeError(e) },
        "disconnect did not finish cleanly",
      ),
    );
  }

  private async connectOnce(reconnect: boolean): Promise<{ selfId: string; selfUsername?: string }> {
    if (reconnect) await this.dropConnection();
    await this.connectTransport();
    // Is the session still authorized? (GramJS's checkAuthorization would hide which error.)
    await this.probe();
    const me = await this.bounded(this.client.getMe(), "users.GetUsers", this.requestTimeoutMs);
    return { selfId: me.id.toString(), ...(me.username ? { selfUsername: me.username } : {}) };
  }

  private async connectTransport(): Promise<void> {
    if (this.closed) throw new ConnectAbortedError();
    this.lastGramJsError = undefined;
    const ok = await this.bounded(this.client.connect(), "connect", this.connectTimeoutMs);
    if (!ok)
      throw this.lastGramJsError instanceof Error ? this.lastGramJsError : new Error("connection failed");
  }

  private async dropConnection(): Promise<void> {
    // GramJS's disconnect() leaves its borrowed connections to other DCs open (exported-senders.ts).
    await this.bounded(
      Promise.all([releaseExportedSenders(this.client), this.client.disconnect()]),
      "disconnect",
      5_000,
    ).catch(() => undefined);
  }

  private bounded<T>(p: Promise<T>, what: string, ms: number): Promise<T> {
    // Real time, not the runtime's clock: GramJS's network work runs in real time.
    return withTimeout(p, ms, what, systemClock);
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  p.catch(() => undefined);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new ConnectAbortedError());
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
