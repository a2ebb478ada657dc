import { mustWait } from "../store/db";
import type { ReplyContext } from "../base/types";
import { admitted, type AdmissionHost } from "./admission";
import { Cancellation, type TaskCancel } from "./cancellation";
import { ClockWatch } from "./clock-jumps";
import { DatabaseWait } from "./database-wait";
import { OutcomeWrites } from "./outcome-writes";
import { RateLimits } from "./rate-limits";
import { ReceivedRules, type ReceivedArrival } from "./received-rules";
import { graphKey, graphTopic, type IntentionItem, type NewTask, type Task } from "./task";
import type { HandlerOutcome, TaskHandler } from "./task-handler";
import { firstReady, graphMoving, isBridge, type ReadyHost } from "./ready";
import { resumeOpenTasks } from "./resume-open";
import { TaskIndex } from "./task-index";
import type { SchedulerOptions } from "./scheduler-options";

export type { SchedulerOptions } from "./scheduler-options";

/**
 * The tick loop over every conversation's task graph: one per chat, and one per forum topic
 * (see graphKey), so two topics of a forum are planned and answered apart.
 *
 * Open tasks (pending/running) live in memory (TaskIndex), and every change is written through
 * to SQLite before it takes effect, so a new process resumes from the database alone. Each tick
 * starts every ready task — dependencies done, not-before reached, not behind a server rate
 * limit — with at most one running task per graph and `concurrency` in total; graphs are
 * visited round-robin from where the previous tick stopped, so none starves. A task finishing
 * triggers another pass at once rather than waiting for the next tick. Apart from this generic
 * graph scheduling: the handler of each kind in tasks/handlers/ (one file per kind), what a
 * handler's outcome makes of its task in outcomes.ts (what becomes of a failure in
 * retry-policy.ts), cancelling in cancellation.ts, server limits in RateLimits, the rules of
 * `received` tasks in ReceivedRules, the clock set forward or back in clock-jumps.ts, a busy
 * database in database-wait.ts, taking over a dead process's tasks in resume-open.ts, which task
 * of a graph may start in ready.ts, the admission gate's no and not-yet in admission.ts, an
 * outcome the database refused kept and written later in outcome-writes.ts.
 */
export class Scheduler {
  private readonly index = new TaskIndex();
  private readonly busyGraphs = new Set<string>();
  readonly limits: RateLimits;
  private readonly received: ReceivedRules;
  private readonly cancellation: Cancellation;
  /** What the ready check (ready.ts) and the admission gate (admission.ts) read. */
  private readonly readyHost: ReadyHost;
  private readonly admission: AdmissionHost;
  /** Writing what became of tasks that ran, waiting out a busy or failing database (outcome-writes.ts). */
  private readonly writes: OutcomeWrites;
  /** Tasks that have run at least once in this process (their attempts may be back at 0). */
  private readonly ranOnce = new Set<number>();
  /** The task begin() just started took a probe (see pass). */
  private probeStarted = false;
  private running = 0;
  private timer: unknown;
  private stopped = true;
  /** While paused (the connection is down) no task starts; running ones finish. */
  private paused = false;
  private abandoned = false;
  /** Set by stop()/abandon(): no more writes (the database may be closing). */
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  /** A busy or failing database: no task starts before its `until` (database-wait.ts). */
  private readonly db: DatabaseWait;
  /** The wall clock set forward or back while running (clock-jumps.ts). */
  private readonly clockWatch: ClockWatch;
  private readonly inflight = new Set<Promise<void>>();
  private readonly tickMs: number;
  private readonly concurrency: number;

  constructor(private readonly o: SchedulerOptions) {
    this.tickMs = o.tickMs ?? 250;
    this.concurrency = o.concurrency ?? 32;
    this.limits = o.limits ?? new RateLimits(o.store.db, o.store.agent, o.logger);
    this.db = new DatabaseWait(o.clock, o.logger, () => o.store.db.name);
    this.clockWatch = new ClockWatch({
      clock: o.clock,
      store: o.store,
      limits: this.limits,
      logger: o.logger,
      index: this.index,
      errorText: (e) => this.db.text(e),
    });
    this.cancellation = new Cancellation({
      index: this.index,
      logger: o.logger,
      transaction: (fn) => this.o.store.transaction(fn),
      finish: (t, status, reason) => this.finish(t, status, reason),
      handler: (t) => this.handler(t),
      track: (p) => {
        const q = p.finally(() => this.inflight.delete(q));
        this.inflight.add(q); // stop() waits for clean-up too
      },
    });
    this.received = new ReceivedRules(
      {
        now: () => this.o.clock.now(),
        tasksOf: (graph) => this.index.ofGraph(graph),
        chatTasks: (chatId) => this.index.ofChat(chatId),
        add: (chatId, topicId, batch) => this.add(chatId, batch, topicId),
        cancelGraph: (graph, reason, o) =>
          this.cancellation.cancel([...this.index.ofGraph(graph)], reason, o.silent),
        cancelTask: (t, reason, o) => this.cancellation.cancel([t], reason, o.silent),
        markShowing: (t) => this.ranOnce.add(t.id),
        save: (t) => this.o.store.save(t, this.o.clock.now()),
        finish: (t, status, reason) => this.finish(t, status, reason),
        transaction: (fn) => this.o.store.transaction(fn),
        kick: () => this.kick(),
        log: (t, event, extra) => this.log(t, event, extra),
      },
      this.tickMs,
      o.typing,
      o.day,
    );
    this.readyHost = {
      index: this.index,
      store: o.store,
      limits: this.limits,
      received: this.received,
      rateKeys: (t) => this.rateKeys(t),
    };
    this.admission = {
      store: o.store,
      logger: o.logger,
      admit: o.admit,
      finish: (t, status, reason) => this.finish(t, status, reason),
    };
    this.writes = new OutcomeWrites({
      store: o.store,
      clock: o.clock,
      logger: o.logger,
      index: this.index,
      db: this.db,
      cancellation: this.cancellation,
      outcomes: {
        store: o.store,
        limits: this.limits,
        received: this.received,
        cancellation: this.cancellation,
        logger: o.logger,
        maxAttempts: o.maxAttempts ?? 10,
        retryDelayMs: o.retryDelayMs ?? 10_000,
        rateKeys: (t) => this.rateKeys(t),
        finish: (t, status, reason, f) => this.finish(t, status, reason, f),
        add: (chatId, batch, topicId, planId) => this.add(chatId, batch, topicId, planId),
        pause: () => this.pause(),
        accountLost: (error) => this.o.onAccountLost?.(error),
        log: (t, event, extra) => this.log(t, event, extra),
      },
      abandoned: () => this.abandoned,
      closed: () => this.closed,
      uncount: () => this.running--,
      freeGraph: (t) => {
        if (!isBridge(t)) this.busyGraphs.delete(graphKey(t.chatId, t.topicId));
      },
      kick: () => this.kick(),
      idleSoon: () => this.idleSoon(),
    });
  }

  /**
   * Load open tasks and server limits from the store. Tasks that were running when the process
   * died are ready again; one with a random_id may have reached the server, so it is in doubt.
   */
  load(): void {
    resumeOpenTasks(
      {
        store: this.o.store,
        limits: this.limits,
        logger: this.o.logger,
        index: this.index,
        received: this.received,
        ranOnce: this.ranOnce,
        finish: (t, status, reason) => this.finish(t, status, reason),
      },
      this.o.clock.now(),
    );
  }

  /** Start ticking. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.closed = false;
    this.schedule();
    this.kick();
  }

  /** Stop ticking and wait for running tasks to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.closed = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    // Clean-ups (cancel actions) may start while running tasks finish: wait until none is left.
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /**
   * Drop everything on the floor as a crashed process would: no more ticks, and outcomes of
   * tasks still running are ignored (never written); the database keeps them "running", so the
   * next start resumes them. The runtime does this when a task outlives stop()'s grace period
   * (and for a kill: the sandbox's `/kill`, crash tests).
   */
  abandon(): void {
    this.abandoned = true;
    this.closed = true;
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Start no task until `resume()` (the account's connection is down); running tasks go on. */
  pause(): void {
    this.paused = true;
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.kick();
  }

  /** Resolves when no task is running (immediately if none is). */
  whenIdle(): Promise<void> {
    if (this.running === 0 || this.abandoned) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Open tasks, for inspection (tests, sandbox --verbose). */
  openTasks(chatId?: string): readonly Task[] {
    return chatId ? [...this.index.ofChat(chatId)] : this.index.all();
  }

  /**
   * Whether a graph's open work is moving: a task of it is running, or one would start at the
   * next pass (not-before reached, no open dependency, its rate keys free). False when every open
   * task waits — a retry gap, an outage or rate limit it is parked under — or none is open, or
   * the scheduler starts nothing now (paused, stopped, the database busy). Reads only.
   */
  moving(graph: string): boolean {
    const now = this.o.clock.now();
    return graphMoving(this.readyHost, graph, now, this.stopped || this.paused || this.db.until > now);
  }

  /** Open tasks subject to a rate key (e.g. the plans waiting for a model: tasks/llm-wait.ts). */
  openWithKey(key: string): readonly Task[] {
    return this.index.all().filter((t) => this.rateKeys(t).includes(key));
  }

  get pendingCount(): number {
    return this.index.size;
  }

  /**
   * Create tasks in a chat's graph, or a forum topic's (one transaction), and let the next pass
   * consider them. `planId`: the `received` task whose plan made them.
   */
  add(chatId: string, batch: readonly NewTask[], topicId?: number, planId?: number): Task[] {
    const made = this.o.store.create(chatId, batch, this.o.clock.now(), graphTopic(topicId), planId);
    for (const t of made) this.index.add(t);
    this.kick();
    return made;
  }

  /** An addressed message arrived (see ReceivedRules.enqueue). */
  enqueueReceived(chatId: string, messageId: number, o: ReceivedArrival): void {
    if (this.closed) return;
    this.received.enqueue(chatId, messageId, o);
  }

  /** One of the persona's intentions fell due (see ReceivedRules.enqueueIntention); its planning task, or undefined when stopped. */
  enqueueIntention(
    chatId: string,
    topicId: number | undefined,
    item: IntentionItem,
    authors: readonly string[],
  ): Task<"received"> | undefined {
    if (this.closed) return undefined;
    return this.received.enqueueIntention(chatId, topicId, item, authors);
  }

  /** The reply context of an addressed message has arrived (see ReceivedRules.attachReply). */
  attachReply(chatId: string, messageId: number, reply: ReplyContext | undefined): void {
    if (this.closed) return;
    this.received.attachReply(chatId, messageId, reply);
  }

  /**
   * Cancel a chat's tasks that have not finished, in every graph of it: unstarted ones at once;
   * running ones when they come back (a send in flight still completes — it may already be on
   * the server, and so may a send in doubt, which goes on until the server settles it).
   * Pending addressing calls stay unless `addressing` (a replan must not lose them; the owner's
   * `/pause`, `/forget` and a takeover drop them too).
   */
  cancelPending(chatId: string, reason: string, o: { readonly addressing?: boolean } = {}): Task[] {
    return this.cancellation.cancel([...this.index.ofChat(chatId)], reason, false, o.addressing === true);
  }

  /**
   * Cancel one open task (the operator console), its dependents with it: pending at once, running
   * when it comes back (a send in flight still completes); a task in doubt is not cancelled (its
   * request may have reached the server: only the server's answer ends it). Undefined when no open
   * task has that id.
   */
  cancelTask(id: number, reason: string): TaskCancel | undefined {
    const t = this.index.get(id);
    return t ? this.cancellation.cancelOne(t, reason) : undefined;
  }

  /**
   * One scheduling pass, from the tick timer or a kick. Protected, not public: nothing drives the
   * scheduler from outside; a subclass may observe its passes (the benchmark times them).
   */
  protected tick(): void {
    this.clockWatch.follow(this.closed);
    if (this.stopped || this.abandoned || this.paused) return;
    if (this.db.until > this.o.clock.now()) return;
    try {
      this.pass();
    } catch (e) {
      // A busy database or a failing disk is waited for (no new task starts meanwhile); anything else is logged.
      if (mustWait(e)) this.db.busy(e);
      // A pass runs from timers and microtasks: an exception here must not kill the process.
      else this.o.logger.error({ component: "scheduler", err: this.db.text(e) }, "scheduling pass failed");
    }
  }

  private pass(): void {
    const now = this.o.clock.now();
    const n = this.index.graphCount;
    if (n === 0) return;
    let lastStarted = -1;
    let probeAt = -1;
    for (let i = 0; i < n && this.running < this.concurrency; i++) {
      const idx = (this.index.cursor + i) % n;
      const graph = this.index.graphAt(idx);
      // A busy graph may still refresh a bridge typing spell (it keeps the status up while the new plan is made).
      const task = firstReady(this.readyHost, graph, now, this.busyGraphs.has(graph));
      if (!task) continue;
      const begun = this.begin(task, now);
      if (begun === "handed-over" || begun === "refused") {
        i--; // it handed over to a newer task, or the gate refused it: look at this graph again
        continue;
      }
      if (begun === "not-recorded") continue;
      lastStarted = idx;
      if (this.probeStarted) probeAt = idx;
      this.probeStarted = false;
    }
    // A probe keeps the turn at its graph: the same chat probes again after a failure, and when
    // the limit lifts the waiting chats go from there, in the order they came (the oldest probes).
    if (probeAt >= 0) this.index.cursor = probeAt;
    else if (lastStarted >= 0) this.index.cursor = (lastStarted + 1) % Math.max(1, this.index.graphCount);
    this.index.compact();
  }

  private rateKeys(t: Task): readonly string[] {
    return this.handler(t).rateKeys?.(t as never) ?? [];
  }

  private begin(task: Task, now: number): "started" | "handed-over" | "refused" | "not-recorded" {
    const newer = this.received.newer(task);
    if (newer) {
      // Left over from a process that died while planning it: the newer task plans for both.
      this.o.store.transaction(() => this.received.handOver(task as Task<"received">, newer, "cancelled"));
      return "handed-over";
    }
    // The admission gate (admission.ts): cancelled, or held until later.
    if (!admitted(this.admission, task, now)) return "refused";
    try {
      this.o.store.save({ ...task, status: "running", attempts: task.attempts + 1 }, now);
    } catch (e) {
      // Not recorded as started, so not started: the task stays pending for a later pass.
      if (mustWait(e)) throw e; // the whole pass waits (see tick)
      this.o.logger.error(
        { component: "scheduler", taskId: task.id, err: this.db.text(e) },
        "could not record task start",
      );
      return "not-recorded";
    }
    this.db.free();
    task.status = "running";
    task.attempts += 1;
    this.probeStarted = this.limits.claim(this.rateKeys(task), task.id, now);
    this.ranOnce.add(task.id);
    if (!isBridge(task)) this.busyGraphs.add(graphKey(task.chatId, task.topicId));
    this.running++;
    this.log(task, "started", { attempt: task.attempts });
    const p = this.execute(task).finally(() => this.inflight.delete(p));
    this.inflight.add(p);
    return "started";
  }

  private async execute(task: Task): Promise<void> {
    let outcome: HandlerOutcome | undefined;
    let error: unknown;
    try {
      outcome = await this.handler(task).run(task as never);
    } catch (e) {
      error = e;
    }
    this.writes.record(task, outcome, error, true);
  }

  /** Outcomes of tasks that ran, waiting for the database to take them. */
  get outcomesWaiting(): number {
    return this.writes.waiting;
  }

  /**
   * A write was rolled back (the disk refused it): memory goes back to what the file holds, since
   * the file is the truth. Tasks the rolled-back work made are forgotten, tasks it finished are
   * open again, and each open task's fields are the stored ones. A running task keeps its object
   * (its handler holds it), and so does one whose outcome waits to be written.
   */
  resync(): void {
    this.writes.resync();
  }

  /**
   * Wake whenIdle() waiters once nothing runs — after the pass this outcome kicked (queued
   * first), so a task that starts right away (the plan's first typing) counts as running.
   */
  private idleSoon(): void {
    if (this.running !== 0) return;
    queueMicrotask(() => {
      if (this.running === 0) for (const w of this.idleWaiters.splice(0)) w();
    });
  }

  /** Move a task to a terminal state; failure or cancellation cascades to its dependents (cancellation.ts). */
  private finish(
    task: Task,
    status: "done" | "failed" | "cancelled",
    reason: string | undefined,
    o: { typesNext?: boolean } = {},
  ): void {
    const now = this.o.clock.now();
    // Started before: it ran at least once (a typing spell that is between refreshes, or one
    // whose request was in flight when the chat was replanned).
    const wasStarted = task.status === "pending" && (task.attempts > 0 || this.ranOnce.has(task.id));
    const silent = this.cancellation.takeSilent(task.id);
    task.status = status;
    if (reason !== undefined) task.error = reason;
    this.o.store.save(task, now);
    this.index.remove(task);
    this.ranOnce.delete(task.id);
    this.log(task, status, reason ? { reason } : {});
    if (status === "failed") this.o.onFailed?.(task, reason ?? "failed");
    this.o.onFinished?.(task, status);
    this.cancellation.ended(task, status, { wasStarted, silent });
    if (task.kind === "received") this.received.planEnded(task, { typesNext: o.typesNext ?? false });
  }

  private handler(t: Task): TaskHandler {
    return this.o.handlers[t.kind] as TaskHandler;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.tick();
      this.schedule();
    }, this.tickMs);
  }

  /** Run a pass soon (after the current synchronous work), not on the next tick. */
  private kick(): void {
    if (this.stopped) return;
    queueMicrotask(() => this.tick());
  }

  private log(task: Task, event: string, extra: Record<string, unknown>): void {
    this.o.logger.debug(
      { component: "scheduler", chatId: task.chatId, taskId: task.id, kind: task.kind, event, ...extra },
      `task ${event}`,
    );
  }
}
