import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { FakeClock } from "../src/base/clock";
import { openDatabase } from "../src/store/db";
import type { Clock } from "../src/base/types";
import { Scheduler } from "../src/tasks/scheduler";
import type { HandlerMap, TaskHandler } from "../src/tasks/task-handler";
import { TaskStore } from "../src/tasks/task-store";
import { IntentionStore } from "../src/store/intentions";
import { Intentions } from "../src/life/intentions";
import { NO_RHYTHM } from "../src/config/persona-rhythm";
import type { Db } from "../src/store/db";

/**
 * `all-ready` is the product's scheduler: every ready task starts on each tick (bounded, one per
 * chat, round-robin), and a task finishing triggers another pass. `one-per-tick` is the policy a
 * peer uses, measured for comparison (see onePerTick).
 */
export type SchedulerPolicy = "all-ready" | "one-per-tick";

/** The product's scheduler, with the real CPU time of its scheduling passes added up. */
class TimedScheduler extends Scheduler {
  tickUs = 0;

  protected override tick(): void {
    const s = process.hrtime.bigint();
    super.tick();
    this.tickUs += Number(process.hrtime.bigint() - s) / 1000;
  }
}

/**
 * The one-task-per-tick policy, wrapped around the product's scheduler from outside: it stays
 * paused but for one pass per tick (no pass when a task finishes), with one task running at a
 * time — one start per tick, as long as a task is answered within a tick (rttMs < tickMs).
 * Call before the scheduler's start(): the pass that start() runs at once must find it paused.
 */
function onePerTick(scheduler: Scheduler, clock: Clock, tickMs: number): { stop(): void } {
  scheduler.pause();
  let timer: unknown;
  const next = () => {
    timer = clock.setTimeout(() => {
      scheduler.resume(); // queues one pass…
      queueMicrotask(() => scheduler.pause()); // …and nothing after it until the next tick
      next();
    }, tickMs);
  };
  next();
  return { stop: () => clock.clearTimeout(timer) };
}

export interface LatencyFigures {
  readonly chats: number;
  readonly tasks: number;
  readonly policy: SchedulerPolicy;
  /** Mean and 95th percentile of ready → started, in (fake) ms. */
  readonly meanMs: number;
  readonly p95Ms: number;
  /** Real CPU time spent in scheduling passes, µs per started task. */
  readonly schedulingUsPerTask: number;
  /** Pending intentions of the persona kept beside the tasks (due after the workload). */
  readonly intentions: number;
}

/**
 * Scheduler latency on a simulated workload: `chats` active chats, each with `perChat` sends
 * becoming ready at random moments over `windowMs`; a fake Telegram answers each send after a
 * `rttMs` round trip (fake clock). Latency = start time − ready time.
 */
export async function benchSchedulerLatency(o: {
  /** Independent runs with different seeds, pooled (gives the 1-chat case enough samples). */
  repeats?: number;
  chats: number;
  perChat?: number;
  windowMs?: number;
  rttMs?: number;
  policy?: SchedulerPolicy;
  seed?: number;
  /** Pending intentions in the same database, due after the workload, with their engine armed. */
  intentions?: number;
}): Promise<LatencyFigures> {
  const all: number[] = [];
  let tickUs = 0;
  for (let r = 0; r < (o.repeats ?? 1); r++) {
    const one = await runOnce({ ...o, seed: (o.seed ?? 42) + r * 7919 });
    all.push(...one.latencies);
    tickUs += one.tickUs;
  }
  all.sort((x, y) => x - y);
  return {
    chats: o.chats,
    tasks: all.length,
    policy: o.policy ?? "all-ready",
    meanMs: all.reduce((s, x) => s + x, 0) / Math.max(1, all.length),
    p95Ms: all[Math.floor(all.length * 0.95)] ?? 0,
    schedulingUsPerTask: tickUs / Math.max(1, all.length),
    intentions: o.intentions ?? 0,
  };
}

async function runOnce(o: {
  chats: number;
  perChat?: number;
  windowMs?: number;
  rttMs?: number;
  policy?: SchedulerPolicy;
  seed: number;
  intentions?: number;
}): Promise<{ latencies: number[]; tickUs: number }> {
  const perChat = o.perChat ?? 5;
  const windowMs = o.windowMs ?? 60_000;
  const rttMs = o.rttMs ?? 100;
  const policy = o.policy ?? "all-ready";
  const clock = new FakeClock();
  const dir = mkdtempSync(join(tmpdir(), "bench-sched-"));
  const db = openDatabase(join(dir, "tasks.db"));
  const tickMs = 250;
  if (policy === "one-per-tick" && rttMs >= tickMs) throw new Error("one-per-tick needs rttMs < tickMs");
  const latencies: number[] = [];
  // The scheduler calls run() as it starts the task: ready → started is measured here.
  const send: TaskHandler = {
    run: (t) => {
      latencies.push(clock.now() - Math.max(t.notBefore, t.createdAt));
      return new Promise((resolve) => clock.setTimeout(() => resolve({ type: "done" }), rttMs));
    },
  };
  // Only sends are created here: every kind gets the send handler.
  const handlers = new Proxy({}, { get: () => send }) as HandlerMap;
  const scheduler = new TimedScheduler({
    store: new TaskStore(db, "bench"),
    clock,
    logger: pino({ level: "silent" }),
    handlers,
    tickMs,
    ...(policy === "one-per-tick" ? { concurrency: 1 } : {}),
  });
  let rand = o.seed;
  const random = () => {
    rand = (rand * 1103515245 + 12345) % 2147483648;
    return rand / 2147483648;
  };
  const t0 = clock.now();
  for (let c = 0; c < o.chats; c++) {
    const times = Array.from({ length: perChat }, () => Math.floor(random() * windowMs)).sort(
      (x, y) => x - y,
    );
    scheduler.add(
      `chat-${c}`,
      times.map((t) => ({ kind: "send" as const, payload: { text: "x" }, notBefore: t0 + t })),
    );
  }
  // The persona's pending intentions, all due after the workload: the engine arms one timer.
  const engine =
    (o.intentions ?? 0) > 0 ? intentionsOf(db, clock, scheduler, o.intentions!, t0 + DAY_MS) : undefined;
  const driver = policy === "one-per-tick" ? onePerTick(scheduler, clock, tickMs) : undefined;
  scheduler.start();
  engine?.start();
  // Run until every task has started and finished (bounded, in case a policy never catches up).
  for (let step = 0; step < 100_000 && scheduler.pendingCount > 0; step++) await clock.advance(1000);
  driver?.stop();
  engine?.stop();
  await scheduler.stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { latencies, tickUs: scheduler.tickUs };
}

const DAY_MS = 86_400_000;

/** `n` pending intentions over 1,000 chats, due from `from` on, one a minute, in one transaction. */
function seedIntentions(store: IntentionStore, n: number, from: number, setAt: number): void {
  store.transaction(() => {
    for (let i = 0; i < n; i++)
      store.add({ chatId: `chat-${i % 1000}`, note: `follow up ${i}`, dueAt: from + i * 60_000, setAt });
  });
}

/** The intention engine over `db` with `n` pending intentions due from `from` (not started). */
function intentionsOf(db: Db, clock: Clock, scheduler: Scheduler, n: number, from: number): Intentions {
  const store = new IntentionStore(db, "bench");
  seedIntentions(store, n, from, clock.now());
  return new Intentions({
    store,
    persona: { rhythm: NO_RHYTHM, timeZone: "UTC", intentions: { perChat: 20, perDay: 100, graceHours: 6 } },
    clock,
    logger: pino({ level: "silent" }),
    scheduler,
    gate: { proactive: () => undefined, intention: () => undefined, isStrangerCall: () => false },
    chatType: () => "dm",
    partnerLastWrote: () => undefined,
  });
}

export interface IntentionStartFigures {
  readonly pending: number;
  /** start() with every one due later: the next due time read, one timer armed (ms, real). */
  readonly startAllLaterMs: number;
  /** start() after a downtime past the grace for every one: all marked missed (ms, real). */
  readonly startAllMissedMs: number;
  /** Looking at what is due when none is (the armed timer's read), µs. */
  readonly nextDueUs: number;
}

/**
 * The cost of `pending` intentions at a start: all due later (the engine reads the soonest and
 * arms one timer), and all overdue by more than the grace (one range update marks them missed).
 */
export async function benchIntentionStart(o: { pending: number }): Promise<IntentionStartFigures> {
  const run = (overdue: boolean) => {
    const clock = new FakeClock();
    const dir = mkdtempSync(join(tmpdir(), "bench-intentions-"));
    const db = openDatabase(join(dir, "state.db"));
    const scheduler = new Scheduler({
      store: new TaskStore(db, "bench"),
      clock,
      logger: pino({ level: "silent" }),
      handlers: {} as HandlerMap,
    });
    const from = overdue ? clock.now() - 30 * DAY_MS : clock.now() + DAY_MS;
    const engine = intentionsOf(db, clock, scheduler, o.pending, from);
    const store = new IntentionStore(db, "bench");
    const s = process.hrtime.bigint();
    engine.start();
    const ms = Number(process.hrtime.bigint() - s) / 1e6;
    if (!overdue && store.nextDue() === undefined) throw new Error("intentions were not stored");
    if (overdue && store.nextDue() !== undefined) throw new Error("overdue intentions were not missed");
    const r = process.hrtime.bigint();
    for (let i = 0; i < 1000; i++) store.due(clock.now(), 50);
    const us = Number(process.hrtime.bigint() - r) / 1e3 / 1000;
    engine.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    return { ms, us };
  };
  const later = run(false);
  const missed = run(true);
  return { pending: o.pending, startAllLaterMs: later.ms, startAllMissedMs: missed.ms, nextDueUs: later.us };
}
