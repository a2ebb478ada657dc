/**
 * One persona on its real account, until it releases its session lock (taken by start.ts): connect (retrying),
 * run the AgentRuntime with a connection watchdog, and stop — on shutdown, gracefully; when
 * Telegram ends the session, with one error line that says how to log in again.
 */
import type { Embedder } from "../llm/embedder";
import type { SpeechClient } from "../llm/speech";
import { GroundedLookup, type LookupClient } from "../llm/grounded";
import type { Logger } from "pino";
import type { TelegramCredentials } from "../config/env";
import type { Persona } from "../config/persona";
import { createGeminiLlm, type Llm } from "../llm/llm";
import type { LlmPurpose } from "../config/llm-purposes";
import { GeminiPlanner } from "../planning/planner";
import type { CuratedMemories } from "../memory/curated";
import type { PriceTable } from "../llm/prices";
import type { Db } from "../store/db";
import { ACCOUNT_BOX } from "../store/update-state";
import type { AccountLostError } from "../tasks/errors";
import { accountLost, loginCommand } from "../telegram/connection/account-errors";
import { TelegramTime } from "../telegram/connection/telegram-time";
import { AccountLink, ConnectAbortedError } from "../telegram/connection/account-link";
import { secureSessionFile, sessionPath, type ClientFactory } from "../telegram/connection/client";
import {
  ConnectionHealth,
  describeError,
  watchUpdates,
  type Backoff,
  type ConnectionHealthOptions,
} from "../telegram/connection/connection-health";
import type { Clock } from "../base/types";
import type { PersonaConnection } from "../http/readiness";
import { AgentRuntime, type AgentRuntimeOptions, type MediaRuntimeOptions } from "../runtime/agent-runtime";

/** How a persona's run ended. */
export type PersonaOutcome =
  | { readonly kind: "stopped" }
  | { readonly kind: "lost"; readonly error: AccountLostError }
  | { readonly kind: "failed"; readonly error: string };

/** Health-watchdog settings that may be tuned (tests use short ones with a FakeClock). */
export type HealthSettings = Pick<
  ConnectionHealthOptions,
  "probeEveryMs" | "suspectProbeMs" | "deadAfterFailures" | "silentAfterMs" | "backoff"
>;

export interface LivePersonaOptions {
  readonly persona: Persona;
  readonly db: Db;
  readonly sessionsDir: string;
  /** Releases the session's lock, taken by the caller (start.ts) before anything connected; called when this persona ends. */
  readonly release: () => void;
  readonly credentials: TelegramCredentials;
  /** Gemini only (tests); start.ts passes `llm` instead. */
  readonly gemini?: {
    readonly apiKey: string;
    readonly model: string;
    readonly baseUrl?: string | undefined;
    /** Models per purpose (e.g. the cheap addressing model); the rest use `model`. */
    readonly models?: Partial<Record<LlmPurpose, string>>;
    /** Thinking tokens per purpose (`GEMINI_THINKING_BUDGET`). */
    readonly thinking?: Partial<Record<LlmPurpose, number>> | undefined;
  };
  /** The persona's LLM as configured (llm/providers.ts: Gemini, an OpenAI-compatible server, per purpose). */
  readonly llm?: (logger: Logger, now: () => number) => Llm;
  /** Look-ups (Gemini's own tools, docs/world.md), where a Gemini key is set; with `gemini`, built from it. */
  readonly lookups?: (logger: Logger) => LookupClient;
  /** Embeddings for memory by meaning (llm/embedding-route.ts); absent: recall by words. */
  readonly embedder?: (logger: Logger) => Embedder | undefined;
  /** Speech for her voice notes (app/speech-setup.ts); absent: she writes. */
  readonly speech?: (logger: Logger) => SpeechClient;
  /** The process logger; this persona's lines carry `agent`. */
  readonly logger: Logger;
  readonly clock: Clock;
  readonly clientFactory?: ClientFactory;
  /** Backoff between connect attempts at start. */
  readonly connectBackoff?: Backoff;
  readonly health?: HealthSettings;
  /** How long shutdown waits for a task in flight (default AgentRuntime's 10 s). */
  readonly stopGraceMs?: number;
  /** Told after the connection came back, work resumed and the catch-up ran (tests). */
  readonly onRestored?: (runtime: AgentRuntime) => void | Promise<void>;
  /**
   * User ids of the personas of this process, shared by all of them: this persona's id is added
   * once it is connected, and none answers another (the loop guard).
   */
  readonly personaIds?: Set<string>;
  /** Prices for the LLM cost estimate (default: the built-in table). */
  readonly prices?: PriceTable;
  /** Addressed messages older than this are not answered (default 1 h; env `MAX_ANSWER_AGE_SEC`). */
  readonly maxAnswerAgeMs?: number;
  /** The persona's curated memories (memory/curated.ts; default none). */
  readonly curated?: CuratedMemories;
  /** Media understanding: curated descriptions, budget. */
  readonly media?: MediaRuntimeOptions;
  /** Told once the persona is running (tests). */
  readonly onRunning?: (runtime: AgentRuntime) => void;
  /** Where readiness and the connection-state gauge read this persona's connection (src/http/readiness.ts). */
  readonly connection?: ConnectionReport;
  /** The database's retention job, for `/status`. */
  readonly retention?: AgentRuntimeOptions["retention"];
}

/** The persona's side of readiness: `runLivePersona` points `source` at what it knows now. */
export interface ConnectionReport {
  source: () => PersonaConnection;
}

/** Run until `stop` aborts or the account is lost. Never throws. */
export async function runLivePersona(o: LivePersonaOptions, stop: AbortSignal): Promise<PersonaOutcome> {
  const name = o.persona.name;
  const log = o.logger.child({ agent: name });
  const file = sessionPath(o.sessionsDir, name);
  const failed = (what: string): PersonaOutcome => {
    stoppedBecause(what);
    log.error(
      { component: "runtime" },
      `${name}: ${what}; this persona is not running. To log in again: ${loginCommand(name)}`,
    );
    return { kind: "failed", error: what };
  };
  const report = (c: () => PersonaConnection) => {
    if (o.connection) o.connection.source = c;
  };
  report(() => ({ state: "connecting" }));
  const stoppedBecause = (reason: string) => report(() => ({ state: "stopped", reason }));
  const lostLine = (e: AccountLostError): PersonaOutcome => {
    stoppedBecause(`${e.explanation} (${e.code}); log in again: ${loginCommand(name)}`);
    log.error(
      { component: "runtime", rpcError: e.code },
      `${name}: ${e.explanation} (${e.code}); this persona stopped. To log in again: ${loginCommand(name)}`,
    );
    return { kind: "lost", error: e };
  };

  const release = o.release;
  try {
    if (secureSessionFile(file))
      log.warn({ component: "runtime" }, "session file was readable by others; narrowed to 0600");
  } catch (e) {
    release();
    return failed(describeError(e));
  }
  // Telegram's time, told by every getState (connect, the watchdog's probes) and the catch-ups.
  const telegramTime = new TelegramTime({ clock: o.clock, logger: log });
  let link: AccountLink;
  try {
    link = new AccountLink({
      sessionFile: file,
      credentials: o.credentials,
      logger: log,
      clock: o.clock,
      onServerTime: (unixSec) => telegramTime.stated(unixSec),
      ...(o.clientFactory ? { clientFactory: o.clientFactory } : {}),
      ...(o.connectBackoff ? { backoff: o.connectBackoff } : {}),
    });
  } catch (e) {
    release();
    return failed(describeError(e));
  }

  let selfId: string;
  let selfUsername: string | undefined;
  try {
    ({ selfId, selfUsername } = await link.connect(stop));
  } catch (e) {
    await link.close();
    release();
    if (e instanceof ConnectAbortedError) {
      stoppedBecause("shut down");
      return { kind: "stopped" };
    }
    const lost = accountLost(e);
    return lost ? lostLine(lost) : failed(describeError(e));
  }

  o.personaIds?.add(selfId);
  let lostError: AccountLostError | undefined;
  const ended = new AbortController();
  const onLost = (e: AccountLostError) => {
    if (lostError) return;
    lostError = e;
    ended.abort();
  };
  const geminiLogger = log.child({ component: "llm" });
  const now = () => o.clock.now();
  const llm = o.llm ? o.llm(geminiLogger, now) : createGeminiLlm({ ...o.gemini!, logger: geminiLogger, now });
  const runtime = new AgentRuntime({
    persona: o.persona,
    db: o.db,
    client: link.client,
    selfId,
    ...(selfUsername !== undefined ? { selfUsername } : {}),
    logger: o.logger,
    clock: o.clock,
    telegramTime,
    onAccountLost: onLost,
    ...(o.personaIds ? { siblings: o.personaIds } : {}),
    ...(o.prices ? { prices: o.prices } : {}),
    ...(o.maxAnswerAgeMs !== undefined ? { maxAnswerAgeMs: o.maxAnswerAgeMs } : {}),
    ...(o.curated ? { curated: o.curated } : {}),
    ...(o.media ? { media: o.media } : {}),
    ...(o.retention ? { retention: o.retention } : {}),
    planner: new GeminiPlanner({ llm, logger: geminiLogger }),
    llm,
    ...((e) => (e ? { embedder: e } : {}))(o.embedder?.(geminiLogger)),
    // Look-ups run on the planning model (the tools need a full model, not the lite ones).
    ...(o.speech ? { speech: o.speech(geminiLogger) } : {}),
    ...(o.lookups
      ? { lookups: o.lookups(geminiLogger) }
      : o.gemini
        ? {
            lookups: new GroundedLookup({
              apiKey: o.gemini.apiKey,
              model: o.gemini.models?.plan ?? o.gemini.model,
              baseUrl: o.gemini.baseUrl,
              logger: geminiLogger,
            }),
          }
        : {}),
  });
  const health = new ConnectionHealth({
    connection: link,
    clock: o.clock,
    logger: log,
    ...o.health,
    onDown: () => runtime.pause(),
    onRestored: async () => {
      runtime.resume();
      // What arrived while the connection was dead is only in the difference: fetch it.
      await runtime.catchUp().catch((err: unknown) => {
        const lost = accountLost(err);
        if (lost) onLost(lost);
        else log.warn({ component: "catch-up", err: String(err) }, "catch-up after reconnect failed");
      });
      await o.onRestored?.(runtime);
    },
    onAccountLost: onLost,
    // Own sends and reads move the account's pts without a pushed update; the tracker counts them.
    localPts: () => runtime.tracker.localPts(ACCOUNT_BOX),
    onBehind: () =>
      runtime.catchUp().catch((err: unknown) => {
        const lost = accountLost(err);
        if (lost) onLost(lost);
        else throw err;
      }),
  });
  // Any update at all shows the connection delivers.
  const unwatch = watchUpdates(link.client, health);
  report(() => ({
    state: health.state === "up" ? "connected" : health.state === "down" ? "reconnecting" : "stopped",
    lastHeardAt: health.lastHeardAt,
    windowMs: health.windowMs,
    ...(health.reason !== undefined ? { reason: health.reason } : {}),
    restrictions: runtime.accountHealth.restrictions().map((r) => ({ kind: r.kind, summary: r.summary })),
  }));
  runtime.start();
  health.start();
  o.onRunning?.(runtime);

  await Promise.race([whenAborted(stop), whenAborted(ended.signal)]);
  health.stop();
  unwatch();
  await runtime.stop(o.stopGraceMs !== undefined ? { graceMs: o.stopGraceMs } : {});
  await link.close();
  release();
  if (lostError) return lostLine(lostError);
  stoppedBecause("shut down");
  return { kind: "stopped" };
}

function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((r) => signal.addEventListener("abort", () => r(), { once: true }));
}
