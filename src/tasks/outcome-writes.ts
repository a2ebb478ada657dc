import type { Logger } from "pino";
import { isBusy, mustWait } from "../store/db";
import type { Clock } from "../base/types";
import type { Cancellation } from "./cancellation";
import type { DatabaseWait } from "./database-wait";
import { settleOutcome, type OutcomeHost } from "./outcomes";
import { resyncIndex } from "./resync";
import type { Task } from "./task";
import type { HandlerOutcome } from "./task-handler";
import type { TaskIndex } from "./task-index";
import type { TaskStore } from "./task-store";

/** What writing outcomes needs from the scheduler. */
export interface OutcomeWriteHost {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly index: TaskIndex;
  readonly db: DatabaseWait;
  readonly cancellation: Cancellation;
  readonly outcomes: OutcomeHost;
  /** Everything was dropped as a crash would (abandon()): nothing is written any more. */
  abandoned(): boolean;
  /** stop() or abandon() was called: no more writes (the database may be closing). */
  closed(): boolean;
  /** The task stops counting as running. */
  uncount(): void;
  /** Its outcome is written: its graph may start its next task. */
  freeGraph(task: Task): void;
  /** Run a pass soon. */
  kick(): void;
  /** Wake whenIdle() waiters once nothing runs. */
  idleSoon(): void;
}

/**
 * Writing what became of a task that ran. A busy database (another process holds the lock;
 * transactions begin IMMEDIATE, so nothing was changed) or a failing disk (full, an I/O error:
 * the write was rolled back whole, and memory goes back to what the file holds) is waited for:
 * the outcome is kept and written later, and the task's graph stays busy meanwhile, so its
 * chat's order holds.
 */
export class OutcomeWrites {
  /** Running tasks whose outcome waits to be written (the database refused it): written later, in order. */
  private readonly waits = new Map<number, Task>();

  constructor(private readonly h: OutcomeWriteHost) {}

  /** Outcomes of tasks that ran, waiting for the database to take them. */
  get waiting(): number {
    return this.waits.size;
  }

  /**
   * Write a task's outcome. `counted`: the task still counts as running (it stops counting while
   * it waits for the database).
   */
  record(task: Task, outcome: HandlerOutcome | undefined, error: unknown, counted: boolean): void {
    const h = this.h;
    if (h.abandoned()) return;
    const now = h.clock.now();
    const cancelRequest = h.cancellation.peekRequest(task.id);
    try {
      h.store.transaction(() => settleOutcome(h.outcomes, task, now, outcome, error));
    } catch (e) {
      if (mustWait(e)) {
        h.db.busy(e);
        if (cancelRequest !== undefined) h.cancellation.restoreRequest(task.id, cancelRequest);
        this.waits.set(task.id, task);
        if (!isBusy(e)) this.resync();
        if (counted) {
          h.uncount();
          h.idleSoon();
        }
        h.clock.setTimeout(() => this.record(task, outcome, error, false), h.db.delayMs);
        return;
      }
      // The database did not take it; the stored row still says "running", so a restart
      // resumes the task. Until then its chat stays blocked: letting its dependents run would
      // break the plan's order. Other chats go on.
      h.logger.error(
        { component: "scheduler", chatId: task.chatId, taskId: task.id, err: h.db.text(e) },
        "could not record task outcome; chat paused until restart",
      );
      if (counted) h.uncount();
      h.idleSoon();
      return;
    }
    this.waits.delete(task.id);
    h.db.free();
    h.freeGraph(task);
    if (counted) h.uncount();
    h.kick();
    h.idleSoon();
  }

  /** Memory goes back to what the file holds (see resyncIndex); outcomes waiting keep their objects. */
  resync(): void {
    if (this.h.closed()) return;
    let rows: Task[];
    try {
      rows = this.h.store.loadOpen();
    } catch {
      return; // not even readable now: memory stays as it is, the next failure tries again
    }
    resyncIndex(this.h.index, rows, this.waits);
  }
}
