import type { Logger } from "pino";
import { errorMessage } from "../base/error-message";
import type { Task } from "./task";
import type { TaskHandler } from "./task-handler";
import type { TaskIndex } from "./task-index";

/** What cancellation needs from the scheduler. */
export interface CancellationHost {
  readonly index: TaskIndex;
  readonly logger: Logger;
  transaction(fn: () => void): void;
  /** Move a task to a terminal state (the scheduler's finish: it calls back `ended`). */
  finish(task: Task, status: "cancelled", reason: string): void;
  handler(task: Task): TaskHandler;
  /** A clean-up in flight: stop() waits for it. */
  track(p: Promise<void>): void;
}

/** What cancelling one task did (the console's Cancel). */
export interface TaskCancel {
  /**
   * `now`: it is cancelled, its dependents with it; `on-return`: it is running, and is cancelled
   * (with them) when it comes back; `in-doubt`: not cancelled — its request may have reached the
   * server, so only the server's answer ends it.
   */
  readonly outcome: "now" | "on-return" | "in-doubt";
  /** The tasks that waited for it (directly or through another) cancelled with it, or to be. */
  readonly dependents: number;
}

/**
 * Cancelling tasks: unstarted ones at once, running ones when they come back (the reason is
 * kept until then), dependents with the task they wait for, and the clean-up of a task that had
 * started (a typing spell is stopped with a cancel action) — except when the cancel is silent: a
 * replan keeps the typing status on screen, and its cascade is as quiet as the replan.
 */
export class Cancellation {
  /** Running tasks whose chat was replanned: cancelled when they come back (an in-flight send still counts as sent). */
  private readonly requested = new Map<number, string>();
  /** Cancelled typing spells that must not be stopped with a cancel action (a replan keeps typing on screen). */
  private readonly silent = new Set<number>();

  constructor(private readonly h: CancellationHost) {}

  /**
   * Cancel tasks that have not finished: pending ones at once, running ones when they come back.
   * A task in doubt is never cancelled (only the server's answer ends it). `silent`: a typing
   * spell that had started is not stopped with a cancel action. `addressing`: pending addressing
   * calls go too (the owner's `/pause`, a takeover) — a replan must not lose the messages they
   * decide on. Returns the tasks cancelled now.
   */
  cancel(tasks: readonly Task[], reason: string, silent: boolean, addressing = false): Task[] {
    this.h.transaction(() => {
      for (const t of tasks) {
        if (t.inDoubt) continue;
        // An addressing call is not part of a plan: a replan must not lose the messages it decides on.
        if (t.kind === "address" && !addressing) continue;
        if (silent) this.silent.add(t.id);
        // (A dependent may already have been cancelled by the cascade of an earlier one.)
        if (t.status === "pending") this.h.finish(t, "cancelled", reason);
        else if (t.status === "running") this.requested.set(t.id, reason);
        else this.silent.delete(t.id);
      }
    });
    return tasks.filter((t) => t.status === "cancelled");
  }

  /** Cancel one open task and its dependents (see Scheduler.cancelTask); a task in doubt is not cancelled. */
  cancelOne(t: Task, reason: string): TaskCancel {
    const waiting = this.h.index.dependentsOf(t);
    if (t.inDoubt) return { outcome: "in-doubt", dependents: 0 };
    this.cancel([t], reason, false, true);
    if (t.status === "cancelled")
      return { outcome: "now", dependents: waiting.filter((d) => d.status === "cancelled").length };
    return { outcome: "on-return", dependents: waiting.length };
  }

  /** The reason a running task was asked to cancel with, without forgetting it (see takeRequest). */
  peekRequest(taskId: number): string | undefined {
    return this.requested.get(taskId);
  }

  /** Ask again (the write that took the request was rolled back: the outcome is recorded later). */
  restoreRequest(taskId: number, reason: string): void {
    this.requested.set(taskId, reason);
  }

  /** The reason a running task was asked to cancel with, if it was (asked once: forgotten here). */
  takeRequest(taskId: number): string | undefined {
    const reason = this.requested.get(taskId);
    this.requested.delete(taskId);
    return reason;
  }

  /** Whether a task that ends now was cancelled silently (forgotten here). */
  takeSilent(taskId: number): boolean {
    return this.silent.delete(taskId);
  }

  /**
   * A task has just reached a terminal state: a cancelled task that had started is cleaned up
   * (unless silent), and a task that did not end done cancels its pending dependents.
   */
  ended(
    task: Task,
    status: "done" | "failed" | "cancelled",
    o: { readonly wasStarted: boolean; readonly silent: boolean },
  ): void {
    if (status === "cancelled" && o.wasStarted && !o.silent) {
      const h = this.h.handler(task);
      if (h.onCancel) {
        this.h.track(
          h
            .onCancel(task as never)
            .catch((e: unknown) =>
              this.h.logger.warn(
                { component: "scheduler", taskId: task.id, err: errorMessage(e) },
                "clean-up after cancel failed",
              ),
            ),
        );
      }
    }
    if (status !== "done") {
      for (const t of [...this.h.index.ofChat(task.chatId)]) {
        if (t.status === "pending" && t.dependsOn.includes(task.id)) {
          if (o.silent) this.silent.add(t.id); // a replan's cascade is as quiet as the replan
          this.h.finish(t, "cancelled", `dependency #${task.id} ${status}`);
        }
      }
    }
  }
}
