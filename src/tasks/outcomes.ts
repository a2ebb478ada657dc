import type { Logger } from "pino";
import { errorMessage } from "../base/error-message";
import type { Cancellation } from "./cancellation";
import { AccountLostError, AlreadyDoneError, RateLimitedError } from "./errors";
import type { RateLimits } from "./rate-limits";
import type { ReceivedRules } from "./received-rules";
import { afterFailure } from "./retry-policy";
import type { NewTask, Task } from "./task";
import type { HandlerOutcome } from "./task-handler";
import type { TaskStore } from "./task-store";

/** What the outcome transitions need from the scheduler. */
export interface OutcomeHost {
  readonly store: TaskStore;
  readonly limits: RateLimits;
  readonly received: ReceivedRules;
  readonly cancellation: Cancellation;
  readonly logger: Logger;
  /** Attempts for transient failures before a task fails, and the delay between them. */
  readonly maxAttempts: number;
  readonly retryDelayMs: number;
  rateKeys(task: Task): readonly string[];
  /** Move a task to a terminal state (cascades to dependents). */
  finish(
    task: Task,
    status: "done" | "failed" | "cancelled",
    reason: string | undefined,
    o?: { typesNext?: boolean },
  ): void;
  /** `planId`: the `received` task whose plan made the batch. */
  add(chatId: string, batch: readonly NewTask[], topicId: number | undefined, planId?: number): void;
  /** Start no task until resume() (the account is gone). */
  pause(): void;
  /** The account is gone: the owner stops the persona. */
  accountLost(error: AccountLostError): void;
  log(task: Task, event: string, extra: Record<string, unknown>): void;
}

/**
 * What becomes of a task after its handler ran it once, inside the transaction that records it:
 * done (with the tasks it spawns), again later, dropped, handed over to a newer `received`
 * task, cancelled because its chat was replanned meanwhile, parked behind a server limit,
 * retried (in doubt or not: retry-policy.ts), or failed for good. The task arrives "running";
 * every branch leaves it pending (saved) or terminal.
 */
export function settleOutcome(
  h: OutcomeHost,
  task: Task,
  now: number,
  outcome: HandlerOutcome | undefined,
  error: unknown,
): void {
  const cancelReason = h.cancellation.takeRequest(task.id);
  if (error instanceof AccountLostError) {
    // Not this task's fault: it waits for the next login (unless its chat was replanned).
    // Nothing else can succeed on this account either: start nothing more.
    h.pause();
    h.limits.settled(h.rateKeys(task), task.id, false);
    task.status = "pending";
    if (cancelReason !== undefined && !task.inDoubt) h.finish(task, "cancelled", cancelReason);
    else {
      task.attempts -= 1;
      h.store.save(task, now);
    }
    h.accountLost(error);
    return;
  }
  // A server limit holds whatever becomes of this task: the next request would only earn a longer one.
  let limitedUntil = 0;
  if (error instanceof RateLimitedError) {
    limitedUntil = h.limits.hit(error, now);
    // A paced limit (the LLM's outage) or a reported one (a frozen account) is reported by whoever
    // paces or met it, once, not per task.
    h.logger[error.scope.paced || error.scope.reported ? "debug" : "warn"](
      {
        component: "scheduler",
        chatId: task.chatId,
        taskId: task.id,
        kind: task.kind,
        rpcError: error.code,
        seconds: error.seconds,
      },
      "rate limited; task rescheduled",
    );
  } else {
    h.limits.settled(h.rateKeys(task), task.id, outcome !== undefined || error instanceof AlreadyDoneError);
  }
  // A plan made for messages that a newer received task now covers is stale.
  const newer = h.received.newer(task);
  if (newer) {
    if (error !== undefined && !(error instanceof RateLimitedError)) {
      h.logger.warn(
        { component: "scheduler", chatId: task.chatId, taskId: task.id, err: errorMessage(error) },
        "planning failed, but a newer message replans anyway",
      );
    }
    task.status = "pending";
    if (outcome?.type === "done") outcome.keep?.();
    h.received.handOver(task as Task<"received">, newer, outcome?.type === "done" ? "done" : "cancelled");
    if (outcome?.type === "done" && outcome.spawn?.length) {
      h.logger.info(
        { component: "scheduler", chatId: task.chatId, taskId: task.id },
        "plan dropped: a newer message arrived while planning",
      );
    }
    return;
  }
  if (outcome?.type === "dropped") {
    task.status = "pending";
    h.finish(task, "cancelled", cancelReason ?? outcome.reason);
    return;
  }
  if (outcome?.type === "again") {
    task.status = "pending";
    if (cancelReason !== undefined) {
      h.finish(task, "cancelled", cancelReason);
      return;
    }
    task.notBefore = outcome.at;
    task.attempts -= 1; // a planned re-run (typing refresh, a wait) is not a failed attempt
    h.store.save(task, now);
    h.log(task, "again", { at: outcome.at });
    return;
  }
  if (outcome?.type === "done") {
    task.inDoubt = false;
    outcome.keep?.();
    // A planning round that made a plan takes its chat's next plan number (the console's "plan 3").
    if (task.kind === "received" && outcome.planned === true) h.store.numberPlan(task);
    h.finish(task, "done", undefined, {
      typesNext: outcome.spawn?.some((t) => t.kind === "typing") ?? false,
    });
    // The plan's tasks carry its id: the console lists a plan's tasks by it.
    if (outcome.spawn?.length)
      h.add(task.chatId, outcome.spawn, task.topicId, task.kind === "received" ? task.id : undefined);
    return;
  }
  if (error instanceof AlreadyDoneError) {
    task.inDoubt = false;
    h.finish(task, "done", undefined);
    h.logger.info(
      {
        component: "scheduler",
        chatId: task.chatId,
        taskId: task.id,
        kind: task.kind,
        detail: error.message,
      },
      "task already applied on the server",
    );
    return;
  }
  const decision =
    error instanceof RateLimitedError
      ? undefined
      : afterFailure(task, error, now, { maxAttempts: h.maxAttempts, retryDelayMs: h.retryDelayMs });
  // A task in doubt is not cancelled: its request may still go out, so only the server's answer ends it.
  if (cancelReason !== undefined && !task.inDoubt && !(decision?.type === "retry" && decision.inDoubt)) {
    // The chat was replanned while this ran; it failed or was limited, and is not retried.
    h.logger.warn(
      {
        component: "scheduler",
        chatId: task.chatId,
        taskId: task.id,
        kind: task.kind,
        err: errorMessage(error),
      },
      "task failed after its chat was replanned; not retried",
    );
    task.status = "pending";
    h.finish(task, "cancelled", cancelReason);
    return;
  }
  if (decision === undefined) {
    task.status = "pending";
    task.notBefore = limitedUntil;
    task.attempts -= 1; // a flood wait is the server pacing us, not a failed attempt
    h.store.save(task, now);
    return;
  }
  const message = errorMessage(error);
  if (decision.type === "fail") {
    if (task.kind === "received") h.store.numberPlan(task);
    h.finish(task, "failed", message);
    h.logger.error(
      {
        component: "scheduler",
        chatId: task.chatId,
        taskId: task.id,
        kind: task.kind,
        attempts: task.attempts,
        err: message,
      },
      decision.permanent ? "task failed (permanent error)" : "task failed after retries",
    );
    return;
  }
  task.status = "pending";
  task.notBefore = decision.at;
  task.inDoubt = decision.inDoubt;
  h.store.save(task, now);
  const meta = {
    component: "scheduler",
    chatId: task.chatId,
    taskId: task.id,
    kind: task.kind,
    attempt: task.attempts,
    err: message,
  };
  if (decision.becameInDoubt)
    h.logger.warn(
      meta,
      "task in doubt (it may have reached the server); retrying with the same random_id until the server settles it",
    );
  else h.logger.warn(meta, decision.inDoubt ? "task still in doubt; will retry" : "task failed; will retry");
}
