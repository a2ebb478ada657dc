/**
 * What one persona's runtime is built from (AgentRuntimeOptions, MediaRuntimeOptions), and what
 * the stages of its composition (compose.ts and compose-*.ts) share.
 */
import type { MemoryMeaning } from "../memory/meaning";
import type { LookupClient } from "../llm/grounded";
import type { Embedder } from "../llm/embedder";
import type { SpeechClient } from "../llm/speech";
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import type { Persona } from "../config/persona";
import type { DayWatch } from "../config/persona-rhythm";
import type { PriceTable } from "../llm/prices";
import type { Llm } from "../llm/llm";
import type { CuratedSources } from "../media/curated";
import type { MediaLimits } from "../media/describer";
import type { CuratedMemories } from "../memory/curated";
import type { Planner } from "../planning/planner";
import type { Db } from "../store/db";
import type { Retention } from "../store/retention";
import type { AccountLostError } from "../tasks/errors";
import type { Scheduler, SchedulerOptions } from "../tasks/scheduler";
import type { TelegramClient } from "../telegram/inbound/listen";
import type { TelegramTime } from "../telegram/connection/telegram-time";
import type { CatchUpChain } from "./catch-up-chain";
import type { AccountHealth } from "../telegram/outbound/account-health";

export interface AgentRuntimeOptions {
  readonly persona: Persona;
  readonly db: Db;
  /** A GramJS client that is logged in (or attached to the emulator). */
  readonly client: TelegramClient;
  /** The account's own user id. */
  readonly selfId: string;
  readonly planner: Planner;
  /**
   * Structured LLM calls other than planning (addressing in smart/talkative groups, summaries,
   * media descriptions). Absent: none are made (smart and talkative then answer only explicit
   * addressing, like strict). When given, usage is recorded from it (the planner should share it).
   */
  readonly llm?: Llm;
  /** Grounded look-ups (llm/grounded.ts); absent: a plan's look-up finds nothing. Usage is recorded from it too. */
  readonly lookups?: LookupClient;
  /** Embeddings for memory by meaning (llm/embedder.ts, runtime/compose-meaning.ts); absent: recall by words. Usage is recorded from it too. */
  readonly embedder?: Embedder;
  /** Loads the vector extension (tests: one that fails); default sqlite-vec's. */
  readonly vectorExtension?: (db: Db) => void;
  /** Speech for her voice notes (llm/speech.ts, `# Voice`); absent: she always writes. Usage is recorded from it too. */
  readonly speech?: SpeechClient;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Bound on the reply-target fetch (default 5 s). */
  readonly replyTimeoutMs?: number;
  /** Bound on one Telegram request (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly scheduler?: Pick<SchedulerOptions, "tickMs" | "concurrency" | "maxAttempts" | "retryDelayMs">;
  /** A request hit an account-terminal error (revoked session, banned account…). */
  readonly onAccountLost?: (error: AccountLostError) => void;
  /** Addressed messages older than this are stored but not answered (default 1 h; env `MAX_ANSWER_AGE_SEC`), neither at inbound nor when their task plans. */
  readonly maxAnswerAgeMs?: number;
  /**
   * Telegram's time, shared with whoever else hears it (the account link's getState at connect
   * and the watchdog's probes); default: one of the runtime's own, told by its catch-ups.
   */
  readonly telegramTime?: TelegramTime;
  /** Catch up when `start()` runs (default true). */
  readonly catchUpOnStart?: boolean;
  /**
   * User ids of the personas running in this process (this one's may be included). Their
   * messages are stored but never answered, even when they mention this persona: the loop guard.
   */
  readonly siblings?: ReadonlySet<string>;
  /** Curated memories of the persona by user id (memory/curated.ts; default none). */
  readonly curated?: CuratedMemories;
  /** Prices for the cost estimate of LLM calls (default: the built-in table). */
  readonly prices?: PriceTable;
  /** The account's @username (without @), for the addressing call; default: the entity store's. */
  readonly selfUsername?: string;
  /** Media understanding (see README "Media"); absent: curated files none, no AI source. */
  readonly media?: MediaRuntimeOptions;
  /** The database's retention job, for `/status` (npm start). */
  readonly retention?: Pick<Retention, "removed" | "last" | "retainDays">;
}

/** How the persona understands photos, stickers and voice. */
export interface MediaRuntimeOptions {
  readonly curated?: CuratedSources;
  /** Describe with the persona's `llm` (purposes "describe" and "transcribe"); false: the chain ends at the cache (default: true when `llm` is given). */
  readonly ai?: boolean;
  /** AI descriptions (download + call) per sliding minute (default 8). */
  readonly budgetPerMinute?: number;
  readonly limits?: Partial<MediaLimits>;
  /** How long an answer waits for descriptions (default 8 s). */
  readonly waitMs?: number;
}

/** What every stage of the composition shares. */
export interface Stage {
  readonly agent: string;
  readonly clock: Clock;
  /** The persona's logger (child with `agent`). */
  readonly logger: Logger;
  /** The persona's `# Read Delay`, in ms. */
  readonly readDelayMs: number;
  /** The persona's `# Quiet Window`, in ms. */
  readonly quietMs: number;
  /** Telegram's time (what message dates are), told by getState and differences. */
  readonly telegramTime: TelegramTime;
  /** The persona's day (`# Sleep`, `# Busy`), asked cheaply at any instant. */
  readonly day: DayWatch;
}

/**
 * Parts a stage needs before a later stage builds them (the tracker's gap fill needs the catch-up
 * chain; addressing and /status need the scheduler). Called only once composition is over.
 */
export interface Late {
  readonly scheduler: () => Scheduler;
  readonly catchUps: () => CatchUpChain;
  readonly accountHealth: () => AccountHealth;
  /** Recall by meaning (runtime/compose-meaning.ts); undefined without an embedder. */
  readonly meaning?: () => MemoryMeaning | undefined;
}
