/**
 * An intention being planned when its asker goes (left the group, removed, blocked): its planning
 * task and whatever its plan put in the graph are cancelled, so the reminder is never sent to
 * someone who is gone (docs/life.md, "People who left"). An intention's plan is a `received` task
 * carrying it (with others' intentions or a burst of messages, maybe); whose it is, is its row's
 * asker (`forUser`), never the plan's authors; its tasks carry the plan's id as `planId`. A send already in flight (or in doubt) completes, as with every cancel. And before it
 * is stored: a plan's schedule whose asker went after asking is refused (`askerGone`).
 */
import type { Logger } from "pino";
import type { IntentionItem, Task, TaskPayloads } from "../tasks/task";
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
  /** Who asked for an intention (its row's `forUser`), or undefined. */
  readonly askerOf: (intentionId: number) => string | undefined;
  /** Store an open task's changed payload. */
  readonly save: (task: Task) => void;
  /** A new planning task in a chat's graph: the rest of a refused plan is planned again. */
  readonly replan: (
    chatId: string,
    topicId: number | undefined,
    payload: TaskPayloads["received"],
  ) => unknown;
  readonly logger: Logger;
}

/** A plan carrying intentions of a person who went, and what became of it. */
export interface RecalledPlan {
  readonly plan: Task<"received">;
  /** The intentions of the person who went, in that plan. */
  readonly gone: readonly IntentionItem[];
  /**
   * True: the plan is refused (its tasks cancelled; what it still adds is refused at admission)
   * — the rest it carried, if any, is planned again by a new task. False: it had not started, and
   * goes on without `gone`.
   */
  readonly refused: boolean;
}

/** The intentions of `userId` that `t`, a planning task, carries (by each intention's asker). */
function theirs(t: Task | undefined, userId: string, askerOf: RecallDeps["askerOf"]): IntentionItem[] {
  if (t?.kind !== "received") return [];
  return ((t as Task<"received">).payload.intentions ?? []).filter((i) => askerOf(i.id) === userId);
}

/**
 * Take `userId`'s intentions out of the plans being made or answered now (each intention by who
 * asked for it, not by the plan's authors). A plan carrying nothing else is cancelled with its
 * tasks; one not started goes on without them; one under way (or answered, its tasks waiting) is
 * refused and what else it carried — others' intentions, messages — is planned again. Returns
 * each plan touched; a refused one's later tasks the admission gate must refuse too (a planning
 * call in flight still comes back with its plan).
 */
export function recallIntentionPlans(
  d: RecallDeps,
  userId: string,
  chatId: string | undefined,
  reason: string,
): RecalledPlan[] {
  const open = d.open(chatId);
  const plans = new Map<number, { plan: Task<"received">; gone: IntentionItem[] }>();
  const seen = new Set<number>();
  const look = (t: Task | undefined) => {
    if (t === undefined || seen.has(t.id)) return;
    seen.add(t.id);
    const gone = theirs(t, userId, d.askerOf);
    if (gone.length > 0) plans.set(t.id, { plan: t as Task<"received">, gone });
  };
  for (const t of open) {
    if (t.kind === "received") look(t);
    else if (t.planId !== undefined && !seen.has(t.planId)) look(d.get(t.planId));
  }
  const out: RecalledPlan[] = [];
  for (const { plan, gone } of plans.values()) {
    const p = plan.payload;
    const ids = new Set(gone.map((i) => i.id));
    const rest = (p.intentions ?? []).filter((i) => !ids.has(i.id));
    const { intentions: _all, ...without } = p;
    const kept = { ...without, ...(rest.length ? { intentions: rest } : {}) };
    const alone = rest.length === 0 && p.items.length === 0;
    if (!alone && plan.status === "pending") {
      // Not started: it plans the rest, without them.
      plan.payload = kept;
      d.save(plan);
      out.push({ plan, gone, refused: false });
      d.logger.info(
        { component: "intentions", chatId: plan.chatId, userId, planTask: plan.id, reason },
        "intention taken out of the plan waiting to be made: the rest is planned",
      );
      continue;
    }
    for (const t of open)
      if (t.status === "pending" && (t.id === plan.id || t.planId === plan.id)) d.cancel(t.id, reason);
    if (!alone) {
      // Under way: its plan may answer them — refused; a newer task plans the rest (a plan coming
      // back hands over to it, so the intentions taken out must leave this one first).
      if (plan.status === "running") {
        plan.payload = kept;
        d.save(plan);
      }
      const authors = (p.authors ?? []).filter((a) => a !== userId);
      d.replan(plan.chatId, plan.topicId, {
        items: p.items.map(({ awaitingReplyUntil: _w, ...i }) => i),
        ...(rest.length ? { intentions: rest } : {}),
        ...(authors.length ? { authors } : {}),
      });
    }
    out.push({ plan, gone, refused: true });
    d.logger.info(
      { component: "intentions", chatId: plan.chatId, userId, planTask: plan.id, reason, replanned: !alone },
      "intention recalled while it was planned or answered: its tasks are cancelled",
    );
  }
  return out;
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
    // A send in doubt (it may have gone out) is settled, never cancelled: as the admission gate does.
    if (task.inDoubt) return undefined;
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
