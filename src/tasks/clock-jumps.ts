import type { Logger } from "pino";
import { formatDuration } from "../base/duration";
import type { Clock } from "../base/types";
import type { RateLimits } from "./rate-limits";
import type { Task } from "./task";
import type { TaskIndex } from "./task-index";
import type { TaskStore } from "./task-store";

/** A wall clock that moved this much more (or less) than the monotonic one between two passes was set. */
const CLOCK_JUMP_MS = 2_000;

/** Deadlines in a task's payload that are dates, moved with the clock. */
function shiftDeadlines(t: Task, ms: number): void {
  const p = t.payload as { planBy?: number; until?: number; items?: { awaitingReplyUntil?: number }[] };
  const next: Record<string, unknown> = {};
  if (p.planBy !== undefined) next.planBy = p.planBy + ms;
  if (p.until !== undefined) next.until = p.until + ms;
  if (p.items?.some((i) => i.awaitingReplyUntil !== undefined))
    next.items = p.items.map((i) =>
      i.awaitingReplyUntil !== undefined ? { ...i, awaitingReplyUntil: i.awaitingReplyUntil + ms } : i,
    );
  if (Object.keys(next).length > 0) t.payload = { ...t.payload, ...next } as Task["payload"];
}

/** A task's wait and its dated deadlines moved by `ms`. */
function shiftTask(t: Task, ms: number): void {
  t.notBefore += ms;
  shiftDeadlines(t, ms);
}

/**
 * At load: a task written later than now means the clock was set back while the process was
 * down. What waits is moved back as far (at least that far, the downtime unknown), not left
 * waiting an hour past its quiet window. Runs inside the load's transaction; returns the shift
 * (0: none).
 */
export function shiftBackAtLoad(
  o: { store: TaskStore; limits: RateLimits; logger: Logger },
  rows: readonly Task[],
  now: number,
  newest: number | undefined,
): number {
  const back = newest !== undefined && newest - now >= CLOCK_JUMP_MS ? now - newest : 0;
  if (back === 0) return 0;
  for (const t of rows) {
    shiftTask(t, back);
    o.store.save(t, now);
  }
  o.limits.shift(back);
  o.logger.warn(
    { component: "scheduler", jumpMs: back, tasks: rows.length },
    `the system clock was set back at least ${formatDuration(-back)} since the last run (a task was written later than now); ${rows.length} open task${rows.length === 1 ? "" : "s"} moved back as far`,
  );
  return back;
}

interface ClockWatchHost {
  readonly clock: Clock;
  readonly store: TaskStore;
  readonly limits: RateLimits;
  readonly logger: Logger;
  readonly index: TaskIndex;
  /** An error for a log line (a database error names the file and the remedy). */
  readonly errorText: (e: unknown) => string;
}

/**
 * The wall clock set forward or back (an operator, NTP) while running: what waits keeps its
 * remaining wait. A quiet window, a read delay, a retry or a rate limit scheduled for "in 3 s"
 * must not become "in 1 h 3 s" when the clock is set back an hour (nor due at once when it is set
 * forward). Seen by comparing the wall clock's pace with the monotonic one at each pass.
 */
export class ClockWatch {
  /** The wall clock and the monotonic clock at the last pass. */
  private lastWall: number | undefined;
  private lastMono = 0;

  constructor(private readonly h: ClockWatchHost) {}

  /** Called at every pass; `closed`: no more writes (the jump is still measured). */
  follow(closed: boolean): void {
    const mono = this.h.clock.monotonic?.();
    if (mono === undefined) return;
    const wall = this.h.clock.now();
    const jump = this.lastWall === undefined ? 0 : wall - this.lastWall - (mono - this.lastMono);
    this.lastWall = wall;
    this.lastMono = mono;
    if (Math.abs(jump) < CLOCK_JUMP_MS || closed) return;
    const moved: Task[] = [];
    for (const t of this.h.index.all()) {
      if (t.status !== "pending") continue;
      shiftTask(t, jump);
      moved.push(t);
    }
    try {
      this.h.store.transaction(() => {
        for (const t of moved) this.h.store.save(t, wall);
        this.h.limits.shift(jump);
      });
    } catch (e) {
      // Memory holds the shifted times; the rows follow with the tasks' next change.
      this.h.logger.warn(
        { component: "scheduler", err: this.h.errorText(e) },
        "could not save the shifted task times",
      );
    }
    this.h.logger.warn(
      { component: "scheduler", jumpMs: Math.round(jump), tasks: moved.length },
      `the system clock was set ${formatDuration(Math.abs(jump))} ${jump < 0 ? "back" : "forward"}; ${moved.length} waiting task${moved.length === 1 ? "" : "s"} ${moved.length === 1 ? "keeps its" : "keep their"} remaining wait`,
    );
  }
}
