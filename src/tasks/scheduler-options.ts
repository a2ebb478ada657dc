import type { Logger } from "pino";
import type { Clock } from "../base/types";
import type { AccountLostError } from "./errors";
import type { RateLimits } from "./rate-limits";
import type { TypingSource } from "./quiet-window";
import type { ArrivalRhythm } from "./received-rules";
import type { Task } from "./task";
import type { HandlerMap } from "./task-handler";
import type { TaskHold } from "./task-hold";
import type { TaskStore } from "./task-store";

/** What a Scheduler is made with: its store, clock and handlers, its bounds, and the hooks it calls. */
export interface SchedulerOptions {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly handlers: HandlerMap;
  /** Tick interval in ms (default 250). */
  readonly tickMs?: number;
  /** Global bound on tasks running at once, across chats (default 32). */
  readonly concurrency?: number;
  /** Attempts for transient failures before a task fails (default 10). */
  readonly maxAttempts?: number;
  /** Delay between transient retries in ms (default 10 000). */
  readonly retryDelayMs?: number;
  /** The account's server limits (default: a RateLimits on the store's database). */
  readonly limits?: RateLimits;
  /** Called when a task fails for good (for the owner's `/status`). */
  readonly onFailed?: (task: Task, reason: string) => void;
  /** Every task that ends, with how (metrics). */
  readonly onFinished?: (task: Task, status: "done" | "failed" | "cancelled") => void;
  /** A task hit an account-terminal error: the task stays pending; the owner stops the persona. */
  readonly onAccountLost?: (error: AccountLostError) => void;
  /** Who is typing where: a due burst holds while its author types (bounded; see quiet-window.ts). */
  readonly typing?: TypingSource;
  /** The persona's day: asleep, an addressed message waits for its waking; busy, its read mark later. */
  readonly day?: ArrivalRhythm;
  /**
   * The admission gate (policy/gate.ts), asked right before a task starts: a reason means the
   * owner's switches or a cap say no, and the task is cancelled (its dependents with it) instead;
   * a hold (tasks/task-hold.ts) means not yet: it stays pending until then.
   */
  readonly admit?: (task: Task) => string | TaskHold | undefined;
}
