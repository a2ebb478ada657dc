/**
 * An intention being planned when its asker goes (left the group, removed, blocked): its planning
 * task and whatever its plan put in the graph are cancelled, so the reminder is never sent to
 * someone who is gone (docs/life.md, "People who left"). An intention's plan is a `received` task
 * carrying intentions and no messages, for its asker (`authors[0]`); its tasks carry its id as
 * `planId`. A send already in flight (or in doubt) completes, as with every cancel. And before it
 * is stored: a plan's schedule whose asker went after asking is refused (`askerGone`).
 */
import type { Logger } from "pino";
import type { Task } from "../tasks/task";
import type { DepartureStore } from "../store/departures";
import type { NewIntention } from "../store/intentions";

/** Why a plan's schedule may not be stored: its asker left, was removed or was blocked since asking. */
export function askerGone(
  departures: Pick<DepartureStore, "goneSince"> | undefined,
  n: NewIntention,
): string | undefined {
  if (n.forUser === undefined) return undefined;
  const gone = departures?.goneSince(n.chatId, n.forUser, n.inReplyTo);
  if (gone === undefined) return undefined;
  return gone === "blocked"
    ? "its asker was blocked"
    : gone === "left"
      ? "its asker left the group after asking"
      : "its asker was removed from the group after asking";
}

export interface RecallDeps {
  /** Open tasks of a chat (every chat when undefined). */
  readonly open: (chatId?: string) => readonly Task[];
  /** A task by id, open or ended (the plan's planning task may have ended). */
  readonly get: (taskId: number) => Task | undefined;
  readonly cancel: (taskId: number, reason: string) => unknown;
  readonly logger: Logger;
}

/** Whether `t` is the planning task of an intention `userId` asked for (no message answered). */
function plansFor(t: Task | undefined, userId: string): boolean {
  if (t?.kind !== "received") return false;
  const p = (t as Task<"received">).payload;
  return (p.intentions?.length ?? 0) > 0 && p.items.length === 0 && p.authors?.[0] === userId;
}

/**
 * Cancel the open work of `userId`'s intentions being planned or answered now; returns their
 * planning tasks (open or ended), whose later tasks the admission gate must refuse too — a
 * planning call in flight still comes back with its plan.
 */
export function recallIntentionPlans(
  d: RecallDeps,
  userId: string,
  chatId: string | undefined,
  reason: string,
): Task<"received">[] {
  const open = d.open(chatId);
  const plans = new Map<number, Task<"received">>();
  const seen = new Map<number, boolean>();
  for (const t of open) {
    if (plansFor(t, userId)) plans.set(t.id, t as Task<"received">);
    else if (t.planId !== undefined && !seen.has(t.planId)) {
      const p = d.get(t.planId);
      seen.set(t.planId, plansFor(p, userId));
      if (plansFor(p, userId)) plans.set(t.planId, p as Task<"received">);
    }
  }
  if (plans.size === 0) return [];
  for (const t of open)
    if (t.status === "pending" && (plans.has(t.id) || (t.planId !== undefined && plans.has(t.planId))))
      d.cancel(t.id, reason);
  for (const id of plans.keys())
    d.logger.info(
      { component: "intentions", chatId, userId, planTask: id, reason },
      "intention recalled while it was planned or answered: its tasks are cancelled",
    );
  return [...plans.values()];
}

/** Recalled plans remembered for the admission gate (a few at a time; bounded whatever happens). */
const MAX_RECALLED = 1_000;
/** How far back a restart looks for recalled plans (their tasks answer within the answer-age hour). */
const RECALL_MEMORY_MS = 2 * 3_600_000;

/**
 * The planning tasks of recalled intentions, and why: the planning task itself (resumed after a
 * restart) and every task its plan made are refused at admission. Memory, filled once from the
 * store at the first question (intentions skipped because their asker went, with their task).
 */
export class RecalledPlans {
  private readonly plans = new Map<number, string>();
  private loaded = false;

  constructor(private readonly stored: (since: number) => readonly { taskId: number; reason: string }[]) {}

  add(planTask: number, why: string): void {
    if (this.plans.size >= MAX_RECALLED) this.plans.clear();
    this.plans.set(planTask, why);
  }

  refusal(task: Task, now: number): string | undefined {
    if (!this.loaded) {
      this.loaded = true;
      for (const r of this.stored(now - RECALL_MEMORY_MS))
        if (!this.plans.has(r.taskId)) this.add(r.taskId, r.reason.replace(/^skipped: /, ""));
    }
    if (this.plans.size === 0) return undefined;
    const why =
      this.plans.get(task.id) ?? (task.planId !== undefined ? this.plans.get(task.planId) : undefined);
    return why === undefined ? undefined : `the intention it answers was recalled: ${why}`;
  }
}
