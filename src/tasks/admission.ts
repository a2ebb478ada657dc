import type { Logger } from "pino";
import type { Task } from "./task";
import { isHold, type TaskHold } from "./task-hold";
import type { TaskStore } from "./task-store";

/** What the admission check needs from the scheduler. */
export interface AdmissionHost {
  readonly store: TaskStore;
  readonly logger: Logger;
  /** The admission gate (see SchedulerOptions.admit). */
  readonly admit?: (task: Task) => string | TaskHold | undefined;
  /** Move a task to a terminal state (cascades to dependents). */
  finish(task: Task, status: "cancelled", reason: string): void;
}

/**
 * The admission gate, in front of everything the persona does, asked right before a task starts:
 * a switch the owner turned on (or a cap reached) since the task was made cancels it, and its
 * dependents with it; a hold keeps it pending until then. True: the task may start now.
 */
export function admitted(h: AdmissionHost, task: Task, now: number): boolean {
  const refused = h.admit?.(task);
  if (isHold(refused)) {
    hold(h, task, refused, now);
    return false;
  }
  if (refused === undefined) return true;
  h.logger.info(
    { component: "scheduler", chatId: task.chatId, taskId: task.id, kind: task.kind, reason: refused },
    "task not run: the admission gate says no",
  );
  h.store.transaction(() => h.finish(task, "cancelled", `not admitted: ${refused}`));
  return false;
}

/** The gate said not yet: the task waits until then (stored, so a restart keeps the wait). */
function hold(h: AdmissionHost, task: Task, hd: TaskHold, now: number): void {
  task.notBefore = Math.max(hd.until, now + 1);
  h.store.save(task, now);
  h.logger.info(
    {
      component: "scheduler",
      chatId: task.chatId,
      taskId: task.id,
      kind: task.kind,
      until: new Date(task.notBefore).toISOString(),
    },
    `task held: ${hd.reason}`,
  );
}
