import { PROBE_WAIT_MS, type RateLimits } from "./rate-limits";
import type { ReceivedRules } from "./received-rules";
import type { Task } from "./task";
import type { TaskIndex } from "./task-index";
import type { TaskStore } from "./task-store";

/** A bridge typing spell runs beside its graph's other task (see ReceivedRules.enqueue): it only keeps a status up. */
export const isBridge = (t: Task): boolean =>
  t.kind === "typing" && (t as Task<"typing">).payload.bridge === true;

/** What the ready check needs from the scheduler. */
export interface ReadyHost {
  readonly index: TaskIndex;
  readonly store: TaskStore;
  readonly limits: RateLimits;
  readonly received: ReceivedRules;
  rateKeys(task: Task): readonly string[];
}

/**
 * The first task of a graph that may start now: pending, its not-before reached, no open
 * dependency, not waiting for its reply context or for its author to stop typing, and not behind
 * a server rate limit (a task that is gets parked until the limit lifts). `bridgesOnly`: the
 * graph is busy, and only a bridge typing spell may start beside its running task.
 */
export function firstReady(h: ReadyHost, graph: string, now: number, bridgesOnly: boolean): Task | undefined {
  for (const t of h.index.ofGraph(graph)) {
    if (t.status !== "pending" || t.notBefore > now) continue;
    if (bridgesOnly && !isBridge(t)) continue;
    if (t.dependsOn.some((d) => h.index.has(d))) continue;
    if (h.received.awaitingReply(t, now)) continue;
    // Its author is still typing: planning waits a little (bounded; a Map lookup, no write).
    if (t.kind === "received" && h.received.typingHold(t, now) > now) continue;
    const until = h.limits.blockedUntil(h.rateKeys(t), now, t.id);
    if (until > now) {
      // Park it until the limit lifts, so the row tells the truth after a restart too — but not
      // for the second at a time it waits behind a probe (the limit's row says it all).
      t.notBefore = until;
      if (until - now > PROBE_WAIT_MS) h.store.save(t, now);
      continue;
    }
    return t;
  }
  return undefined;
}

/**
 * Whether a graph's open work is moving: a task of it is running, or one would start at the next
 * pass (not-before reached, no open dependency, its rate keys free). `startsNothing`: the
 * scheduler starts no task now (paused, stopped, the database busy). Reads only.
 */
export function graphMoving(h: ReadyHost, graph: string, now: number, startsNothing: boolean): boolean {
  const tasks = h.index.ofGraph(graph);
  if (tasks.some((t) => t.status === "running")) return true;
  if (startsNothing) return false;
  return tasks.some(
    (t) =>
      t.status === "pending" &&
      t.notBefore <= now &&
      !t.dependsOn.some((d) => h.index.has(d)) &&
      h.limits.blockedUntil(h.rateKeys(t), now, t.id) <= now,
  );
}
