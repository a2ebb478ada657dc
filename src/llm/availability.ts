/**
 * Is Gemini answering? One state per model, kept by the client from the outcome of every request.
 *
 * Up: calls go out as usual (the client retries a blip a few times, seconds apart). When a call
 * gives up on a transient failure (5xx, 429, a reset or refused connection, a timeout, an
 * unparsable 200), the model is **down**: one warning line, and from then on
 *
 * - no call goes out before the next try time; a call that comes earlier is refused without a
 *   request (LlmUnavailableError, with how long to wait);
 * - at the next try time exactly one call goes out — the probe — with a single attempt; the
 *   others are refused while it runs;
 * - the probe failing again pushes the next try out: exponential backoff with equal jitter from
 *   BASE_MS up to CAP_MS, or exactly what the server asked for (RetryInfo `retryDelay`, a
 *   `Retry-After` header), bounded by MAX_SERVER_DELAY_MS;
 * - any answer from the model (a plan, a block, a 400) ends the outage: one warning line with
 *   its length, the failed attempts and how many plans waited.
 *
 * Callers park their work for the `retryInMs` they are told (tasks/llm-wait.ts), so a
 * message addressed during an outage waits — however long, within its answer-age limit — and is
 * answered when the model is back. The state is memory only: after a restart the first call
 * finds out again (the tasks' parked rows keep them waiting meanwhile).
 */
import type { Logger } from "pino";
import { watchLlm } from "../metrics/metrics";
import { formatDuration } from "../base/duration";

/** First pause after an outage starts (the pause doubles with every failed probe)… */
const OUTAGE_BASE_MS = 2_000;
/** …up to this: the longest the persona may take to notice that the model is back. */
export const OUTAGE_CAP_MS = 120_000;
/** The longest server-named pause honoured as is (longer ones are cut to this). */
const MAX_SERVER_DELAY_MS = 3_600_000;
/** Shortest "come back later" a refused call is told while a probe runs. */
const PROBE_RUNNING_RETRY_MS = 1_000;

/** One model that is failing, as the read-only accessor reports it. */
interface ModelOutage {
  readonly model: string;
  /** When the outage started (the call that gave up). */
  readonly since: number;
  /** Failed attempts since then, the first call's and every probe's. */
  readonly failures: number;
  /** What the last failure was, e.g. "HTTP 503 UNAVAILABLE" or "network: ECONNRESET". */
  readonly lastError: string;
  /** When the next probe may go out. */
  readonly nextTryAt: number;
  /** A probe is in flight now. */
  readonly probing: boolean;
  /** Plans (and addressing calls) parked until the model is back. */
  readonly waiting: number;
}

/** The last outage that ended. */
export interface EndedOutage {
  readonly model: string;
  readonly since: number;
  readonly endedAt: number;
  readonly failures: number;
  readonly plansWaited: number;
}

/** What `/status` and a metrics endpoint read (AgentRuntime.llmAvailability): which models are failing now, and the history in brief. */
export interface AvailabilitySnapshot {
  readonly down: readonly ModelOutage[];
  /** Outages that ended since the process started. */
  readonly ended: number;
  readonly lastEnded?: EndedOutage;
  /** Models called since the process started. */
  readonly models?: readonly string[];
  /** Outages that started since the process started, per model. */
  readonly outages?: Readonly<Record<string, number>>;
}

/** Whether a call may go out now. */
export type Admission =
  | { readonly go: true; readonly probe: boolean }
  | { readonly go: false; readonly retryInMs: number; readonly outage: ModelOutage };

interface State {
  since: number;
  failures: number;
  lastError: string;
  nextTryAt: number;
  probing: boolean;
  /** Consecutive failed probes: the backoff's exponent. */
  streak: number;
}

export interface AvailabilityOptions {
  readonly now: () => number;
  /** The LLM component's logger (its lines carry `component: "llm"` from it). */
  readonly logger: Logger;
  /** For the jitter (tests pin it); default Math.random. */
  readonly random?: () => number;
  readonly baseMs?: number;
  readonly capMs?: number;
  /** How a model is named in the outage lines (default `Gemini <model>`; providers.ts names the provider). */
  readonly label?: (model: string) => string;
}

/** The availability of every model one client talks to. */
export class LlmAvailability {
  private readonly models = new Map<string, State>();
  /** Every model asked about, and how many outages each had (for the metrics). */
  private readonly seen = new Map<string, { outages: number }>();
  private ended = 0;
  private lastEnded: EndedOutage | undefined;
  private waiting: (model: string) => number = () => 0;
  private readonly random: () => number;
  private readonly baseMs: number;
  private readonly capMs: number;
  private readonly label: (model: string) => string;

  constructor(private readonly o: AvailabilityOptions) {
    this.label = o.label ?? ((model) => `Gemini ${model}`);
    this.random = o.random ?? Math.random;
    this.baseMs = o.baseMs ?? OUTAGE_BASE_MS;
    this.capMs = Math.max(this.baseMs, o.capMs ?? OUTAGE_CAP_MS);
  }

  /** How many plans wait on a model (the runtime counts its parked planning tasks); for the end-of-outage line. */
  countWaiting(fn: (model: string) => number): void {
    this.waiting = fn;
  }

  /** True while no outage of `model` is on. */
  isUp(model: string): boolean {
    return !this.models.has(model);
  }

  /** True when a call to `model` would go out now (up, or down with the probe free and due). */
  isAvailable(model: string): boolean {
    const s = this.models.get(model);
    return s === undefined || (!s.probing && s.nextTryAt <= this.o.now());
  }

  /**
   * Report this client's availability as persona `agent`'s in the metrics (models down, plans
   * waiting, outages; read when scraped). Returns the way to stop.
   */
  reportAs(agent: string): () => void {
    return watchLlm(agent, () => this.snapshot());
  }

  /** Ask before sending. A `probe` admission must end in `failed`, `answered` or `release`. */
  admit(model: string): Admission {
    if (!this.seen.has(model)) this.seen.set(model, { outages: 0 });
    const s = this.models.get(model);
    if (!s) return { go: true, probe: false };
    const now = this.o.now();
    if (s.probing || s.nextTryAt > now) {
      return {
        go: false,
        retryInMs: Math.max(PROBE_RUNNING_RETRY_MS, s.nextTryAt - now),
        outage: view(model, s, 0),
      };
    }
    s.probing = true;
    return { go: true, probe: true };
  }

  /**
   * A call to `model` gave up on a transient failure. Returns how long until the model may be
   * tried again. Only the first failure (which starts the outage) and a probe's move the next
   * try; calls that were already under way when the outage started just learn the time.
   */
  failed(
    model: string,
    reason: string,
    o: { probe: boolean; attempts: number; serverDelayMs?: number | undefined },
  ): number {
    const now = this.o.now();
    let s = this.models.get(model);
    if (!s) {
      s = {
        since: now,
        failures: o.attempts,
        lastError: reason,
        nextTryAt: now + this.delay(0, o.serverDelayMs),
        probing: false,
        streak: 0,
      };
      this.models.set(model, s);
      const tally = this.seen.get(model);
      if (tally) tally.outages++;
      else this.seen.set(model, { outages: 1 });
      this.o.logger.warn(
        { model, error: reason, retryInMs: s.nextTryAt - now },
        `${this.label(model)} is unavailable (${reason}); addressed messages wait and are answered when it is back`,
      );
      return s.nextTryAt - now;
    }
    s.failures += o.attempts;
    s.lastError = reason;
    if (o.probe) {
      s.probing = false;
      s.streak++;
      s.nextTryAt = now + this.delay(s.streak, o.serverDelayMs);
      this.o.logger.debug(
        { model, error: reason, failures: s.failures, retryInMs: s.nextTryAt - now },
        `${this.label(model)} still unavailable`,
      );
    }
    return Math.max(PROBE_RUNNING_RETRY_MS, s.nextTryAt - now);
  }

  /** The model answered (anything but a transient failure): an outage, if any, is over. */
  answered(model: string): void {
    const s = this.models.get(model);
    if (!s) return;
    this.models.delete(model);
    const now = this.o.now();
    const plansWaited = this.waiting(model);
    this.ended++;
    this.lastEnded = { model, since: s.since, endedAt: now, failures: s.failures, plansWaited };
    this.o.logger.warn(
      { model, outageMs: now - s.since, failures: s.failures, plansWaited },
      `${this.label(model)} is back after ${formatDuration(now - s.since)} (${s.failures} failed attempt${s.failures === 1 ? "" : "s"}); ${plansWaited} plan${plansWaited === 1 ? "" : "s"} waited`,
    );
  }

  /** A probe ended without telling anything (the call broke before an answer): the next call may probe. */
  release(model: string): void {
    const s = this.models.get(model);
    if (s) s.probing = false;
  }

  snapshot(): AvailabilitySnapshot {
    return {
      down: [...this.models].map(([model, s]) => view(model, s, this.waiting(model))),
      ended: this.ended,
      ...(this.lastEnded ? { lastEnded: this.lastEnded } : {}),
      models: [...this.seen.keys()],
      outages: Object.fromEntries([...this.seen].map(([model, t]) => [model, t.outages])),
    };
  }

  /** Exponential with equal jitter (half the step at least), or the server's own pause. */
  private delay(streak: number, serverDelayMs: number | undefined): number {
    if (serverDelayMs !== undefined)
      return Math.min(MAX_SERVER_DELAY_MS, Math.max(PROBE_RUNNING_RETRY_MS, serverDelayMs));
    const step = Math.min(this.capMs, this.baseMs * 2 ** streak);
    return Math.round(step / 2 + this.random() * (step / 2));
  }
}

function view(model: string, s: State, waiting: number): ModelOutage {
  return {
    model,
    since: s.since,
    failures: s.failures,
    lastError: s.lastError,
    nextTryAt: s.nextTryAt,
    probing: s.probing,
    waiting,
  };
}
