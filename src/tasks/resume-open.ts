import type { Logger } from "pino";
import { shiftBackAtLoad } from "./clock-jumps";
import type { RateLimits } from "./rate-limits";
import type { ReceivedRules } from "./received-rules";
import type { Task } from "./task";
import type { TaskIndex } from "./task-index";
import type { TaskStore } from "./task-store";

interface ResumeHost {
  readonly store: TaskStore;
  readonly limits: RateLimits;
  readonly logger: Logger;
  readonly index: TaskIndex;
  readonly received: ReceivedRules;
  /** Tasks that have begun before (a typing spell or wait that had begun before the crash). */
  readonly ranOnce: Set<number>;
  readonly finish: (t: Task, status: "cancelled", reason: string) => void;
}

/**
 * A new process takes over the open tasks and server limits from the store. Tasks that were
 * running when the process died are ready again; one with a random_id may have reached the
 * server, so it is in doubt. The clock set back while down moves what waits back as far
 * (clock-jumps.ts); a dependency that ended badly before the crash cancels its dependents now.
 */
export function resumeOpenTasks(h: ResumeHost, now: number): void {
  const newest = h.store.newestWrite();
  h.limits.load(now);
  const rows = h.store.loadOpen();
  h.store.transaction(() => {
    shiftBackAtLoad(h, rows, now, newest);
    for (const t of rows) {
      if (t.status === "running") {
        t.status = "pending";
        if (t.randomId !== undefined) t.inDoubt = true;
        h.store.save(t, now);
      }
      if (h.received.forgetReplyFetch(t)) h.store.save(t, now);
      if ((t.payload as { until?: number }).until !== undefined) h.ranOnce.add(t.id);
      h.index.add(t);
    }
    for (const t of rows) {
      for (const d of t.dependsOn) {
        if (h.index.has(d)) continue;
        const dep = h.store.get(d);
        if (dep && dep.status !== "done" && h.index.has(t.id))
          h.finish(t, "cancelled", `dependency #${d} ${dep.status}`);
      }
    }
  });
  if (rows.length) h.logger.info({ component: "scheduler", resumed: rows.length }, "resumed open tasks");
}
