/**
 * The reading requests of the inbound side — catch-up, gap fills and polls, the sender resolver,
 * the reply fetch — each bounded in time and held back while Telegram has its method in a flood
 * wait.
 *
 * - A FLOOD_WAIT_n on a method pauses that method account-wide (mtcute's flood waiter keeps one
 *   wait per method name; TDLib delays every 420) for n seconds plus a little jitter, persisted in
 *   the task engine's rate limits (tasks/rate-limits.ts, key `flood:<method>`, the same key an
 *   action's method pauses on), so a restart does not walk back into it. Until it ends the method
 *   is not called at all: the caller gets a {@link PausedError} naming the end, and retries then.
 * - Every request is bounded by `timeoutMs` in real time (GramJS's `invoke()` has no bound, and a
 *   request its reconnect dropped never settles): the caller gets a TimeoutError and counts it as
 *   a failed sync.
 */
import type { Logger } from "pino";
import { errors, type Api, type TelegramClient } from "telegram";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";
import type { Clock } from "../../base/types";
import { metrics } from "../../metrics/metrics";
import { RateLimitedError } from "../../tasks/errors";
import type { RateLimits } from "../../tasks/rate-limits";
import { methodKey } from "../outbound/rpc-errors";

/** Default bound on one reading request. */
const READ_TIMEOUT_MS = 30_000;
/** Jitter added to a flood wait: at least this… */
const JITTER_MIN_SEC = 1;
/** …plus up to a tenth of the wait, at most this. */
const JITTER_MAX_SEC = 30;

/** The method is paused (Telegram's flood wait on it): no request was made; try again at `until`. */
export class PausedError extends Error {
  constructor(
    readonly method: string,
    /** When the method may be called again (the runtime clock's ms). */
    readonly until: number,
    options?: { cause?: unknown },
  ) {
    super(`${method} paused by a flood wait until ${new Date(until).toISOString()}`, options);
    this.name = "PausedError";
  }
}

export interface ReadCallsOptions {
  readonly client: TelegramClient;
  /** The account's persisted limits (the task engine's). */
  readonly limits: RateLimits;
  /** The runtime's clock: when a pause ends. */
  readonly clock: Clock;
  readonly logger: Logger;
  readonly agent: string;
  /** Bound on one request, real time (default 30 s). */
  readonly timeoutMs?: number;
  /** For the jitter (default Math.random). */
  readonly random?: () => number;
}

export class ReadCalls {
  private readonly timeoutMs: number;

  constructor(private readonly o: ReadCallsOptions) {
    this.timeoutMs = o.timeoutMs ?? READ_TIMEOUT_MS;
  }

  /** When `method` may be called again; 0 when it is not paused. */
  pausedUntil(method: string): number {
    const now = this.o.clock.now();
    const until = this.o.limits.blockedUntil([methodKey(method)], now);
    return until > now ? until : 0;
  }

  /** `client.invoke(req)`, bounded and paused as the file comment says. */
  invoke<R extends Api.AnyRequest>(req: R): Promise<R["__response"]> {
    return this.run(req.className, () => this.o.client.invoke(req));
  }

  /**
   * `work` (one request of `method`, e.g. GramJS's getReplyMessage), bounded by `timeoutMs` (or
   * the given bound) and paused as the file comment says.
   */
  async run<T>(method: string, work: () => Promise<T>, timeoutMs = this.timeoutMs): Promise<T> {
    const paused = this.pausedUntil(method);
    if (paused > 0) throw new PausedError(method, paused);
    try {
      // Real time: this bounds network I/O, whatever clock the runtime runs.
      return await withTimeout(work(), timeoutMs, method, systemClock);
    } catch (e) {
      if (e instanceof errors.FloodWaitError)
        throw new PausedError(method, this.pause(method, e.seconds), { cause: e });
      throw e;
    }
  }

  /** Record Telegram's flood wait on `method`: paused account-wide, persisted; returns its end. */
  private pause(method: string, seconds: number): number {
    const random = this.o.random ?? Math.random;
    const jitter = JITTER_MIN_SEC + random() * Math.min(JITTER_MAX_SEC, seconds / 10);
    const already = this.pausedUntil(method) > 0; // requests in flight meet the same wait: one line
    const now = this.o.clock.now();
    const until = this.o.limits.hit(
      new RateLimitedError(methodKey(method), seconds + jitter, `FLOOD_WAIT_${seconds}`),
      now,
    );
    metrics.floodWaits.inc({ agent: this.o.agent, method });
    if (already) return until;
    this.o.logger.warn(
      {
        component: "limits",
        method,
        rpcError: `FLOOD_WAIT_${seconds}`,
        until: new Date(until).toISOString(),
      },
      `FLOOD_WAIT_${seconds} on ${method}: not asked again before ${new Date(until).toISOString()}`,
    );
    return until;
  }
}
