import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { ChatStore } from "../../src/store/chats";
import { openDatabase } from "../../src/store/db";
import { PermanentError, RateLimitedError } from "../../src/tasks/errors";
import { Scheduler } from "../../src/tasks/scheduler";
import type { HandlerMap, HandlerOutcome, TaskHandler } from "../../src/tasks/task-handler";
import type { Task, TaskKind } from "../../src/tasks/task";
import { TaskStore } from "../../src/tasks/task-store";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

type Run = (t: Task) => Promise<void>;

/** Handlers that record what ran when, one for every kind (typed: a missing one does not compile); `send` behaviour is scripted per test. */
function setup(
  o: {
    send?: Run;
    concurrency?: number;
    maxAttempts?: number;
    dbPath?: string;
    clock?: FakeClock;
    /** What a planning round comes back with (default: done, nothing planned). */
    received?: (t: Task<"received">) => HandlerOutcome;
  } = {},
) {
  const clock = o.clock ?? new FakeClock();
  const dbPath = o.dbPath ?? tempDbPath();
  const db = openDatabase(dbPath);
  const log = captureLogger();
  const ran: { id: number; kind: TaskKind; chatId: string; at: number }[] = [];
  const simple = <K extends TaskKind>(run?: Run): TaskHandler<K> => ({
    async run(t) {
      ran.push({ id: t.id, kind: t.kind, chatId: t.chatId, at: clock.now() });
      await run?.(t);
      return { type: "done" };
    },
    rateKeys: (t) => [`flood:${t.kind}:${t.chatId}`],
  });
  const handlers: HandlerMap = {
    received: o.received
      ? {
          async run(t) {
            ran.push({ id: t.id, kind: t.kind, chatId: t.chatId, at: clock.now() });
            return o.received!(t);
          },
        }
      : simple(),
    typing: simple(),
    send: simple(o.send),
    sticker: simple(),
    react: simple(),
    wait: {
      async run(t) {
        const until = t.payload.until ?? clock.now() + t.payload.seconds * 1000;
        if (clock.now() >= until) {
          ran.push({ id: t.id, kind: "wait", chatId: t.chatId, at: clock.now() });
          return { type: "done" };
        }
        t.payload = { ...t.payload, until };
        return { type: "again", at: until };
      },
    },
    read: simple(),
    block: simple(),
    unblock: simple(),
    address: simple(),
    summarize: simple(),
    remember: simple(),
    schedule: simple(),
    look_up: simple(),
  };
  const scheduler = new Scheduler({
    store: new TaskStore(db, "A"),
    clock,
    logger: log.logger,
    handlers,
    tickMs: 100,
    concurrency: o.concurrency ?? 8,
    maxAttempts: o.maxAttempts ?? 3,
    retryDelayMs: 1000,
  });
  clock.settle = () => scheduler.whenIdle();
  return { clock, db, dbPath, scheduler, ran, log };
}

describe("scheduler", () => {
  it("runs a chat's tasks in list order, and different chats in the same tick", async () => {
    const s = setup();
    s.scheduler.load();
    s.scheduler.start();
    s.scheduler.add("c1", [
      { kind: "send", payload: { text: "a" } },
      { kind: "wait", payload: { seconds: 3 }, after: [0] },
      { kind: "send", payload: { text: "b" }, after: [1] },
    ]);
    s.scheduler.add("c2", [{ kind: "send", payload: { text: "x" } }]);
    await s.clock.advance(5000);
    const c1 = s.ran.filter((r) => r.chatId === "c1").map((r) => `${r.kind}@${r.at - s.ran[0]!.at}`);
    expect(c1).toEqual(["send@0", "wait@3000", "send@3000"]);
    expect(s.ran.find((r) => r.chatId === "c2")!.at).toBe(s.ran[0]!.at);
    expect(s.scheduler.pendingCount).toBe(0);
  });

  it("runs one task at a time per graph: forum topics of one chat run side by side, and keep their graphs after a restart", async () => {
    const dbPath = tempDbPath();
    const first = setup({ dbPath });
    first.scheduler.load();
    // Stored with their topics (the General topic, 1, is the chat's own graph); the process stops before running them.
    first.scheduler.add(
      "f",
      [
        { kind: "send", payload: { text: "t5-a" } },
        { kind: "send", payload: { text: "t5-b" } },
      ],
      5,
    );
    first.scheduler.add("f", [{ kind: "send", payload: { text: "t7" } }], 7);
    first.scheduler.add("f", [{ kind: "send", payload: { text: "general" } }], 1);
    first.db.close();
    const running = new Set<string>();
    let overlap = 0;
    let peak = 0;
    const s = setup({
      dbPath,
      send: async (t) => {
        const key = `${t.chatId}/${t.topicId ?? "-"}`;
        if (running.has(key)) overlap++;
        running.add(key);
        peak = Math.max(peak, running.size);
        await new Promise((r) => setImmediate(r));
        running.delete(key);
      },
    });
    s.scheduler.load();
    expect(s.scheduler.openTasks("f").map((t) => t.topicId ?? null)).toEqual([5, 5, 7, null]);
    s.scheduler.start();
    await s.clock.advance(1000);
    expect(s.ran.filter((r) => r.chatId === "f")).toHaveLength(4);
    expect(peak).toBe(3); // three graphs at once…
    expect(overlap).toBe(0); // …but never two tasks of one graph
    expect(s.scheduler.pendingCount).toBe(0);
  });

  it("a rate limit on one chat parks that chat only, then delivers once", async () => {
    let floods = 1;
    const s = setup({
      send: async (t) => {
        if (t.chatId === "slow" && floods-- > 0)
          throw new RateLimitedError(`flood:send:slow`, 120, "FLOOD_WAIT_120");
      },
    });
    s.scheduler.load();
    s.scheduler.start();
    const t0 = s.clock.now();
    s.scheduler.add("slow", [{ kind: "send", payload: { text: "1" } }]);
    s.scheduler.add("fast", [{ kind: "send", payload: { text: "2" } }]);
    await s.clock.advance(1000);
    expect(s.ran.filter((r) => r.chatId === "fast").length).toBe(1);
    s.scheduler.add("fast", [{ kind: "send", payload: { text: "3" } }]);
    await s.clock.advance(1000);
    expect(s.ran.filter((r) => r.chatId === "fast").map((r) => r.at - t0)).toEqual([0, 1000]);
    await s.clock.advance(118_000);
    const slow = s.ran.filter((r) => r.chatId === "slow");
    expect(slow.length).toBe(2); // the flooded attempt, then the delivery
    expect(slow[1]!.at - t0).toBeGreaterThanOrEqual(120_000);
    expect(slow[1]!.at - t0).toBeLessThan(120_200);
    expect(s.scheduler.pendingCount).toBe(0);
  });

  it("a permanent error fails at once and cancels dependents; a transient one retries up to the bound", async () => {
    const s = setup({
      maxAttempts: 3,
      send: async (t) => {
        if (t.chatId === "perm") throw new PermanentError("CHAT_WRITE_FORBIDDEN");
        if (t.chatId === "flaky") throw new Error("socket hang up");
      },
    });
    s.scheduler.load();
    s.scheduler.start();
    const [p1, p2] = s.scheduler.add("perm", [
      { kind: "send", payload: { text: "a" } },
      { kind: "react", payload: { messageId: 1, emoji: "👍" }, after: [0] },
    ]);
    const [f1] = s.scheduler.add("flaky", [{ kind: "send", payload: { text: "b" } }]);
    await s.clock.advance(10_000);
    const store = new TaskStore(s.db, "A");
    expect(store.get(p1!.id)!.status).toBe("failed");
    expect(store.get(p2!.id)!.status).toBe("cancelled");
    expect(s.ran.filter((r) => r.chatId === "perm").length).toBe(1);
    expect(store.get(f1!.id)!.status).toBe("failed");
    expect(store.get(f1!.id)!.attempts).toBe(3);
    expect(s.ran.filter((r) => r.chatId === "flaky").length).toBe(3);
    const errors = s.log.lines().filter((l) => l.level === 50);
    expect(errors.length).toBe(2); // one error line per failed task
  });

  it("never starts two tasks of one chat at once, and bounds global concurrency", async () => {
    let running = 0;
    let peak = 0;
    const perChat = new Map<string, number>();
    let perChatPeak = 0;
    const s = setup({
      concurrency: 4,
      send: async (t) => {
        running++;
        perChat.set(t.chatId, (perChat.get(t.chatId) ?? 0) + 1);
        peak = Math.max(peak, running);
        perChatPeak = Math.max(perChatPeak, perChat.get(t.chatId)!);
        await new Promise((r) => setTimeout(r, 2));
        perChat.set(t.chatId, perChat.get(t.chatId)! - 1);
        running--;
      },
    });
    s.scheduler.load();
    s.scheduler.start();
    for (let c = 0; c < 10; c++) {
      s.scheduler.add(`c${c}`, [
        { kind: "send", payload: { text: "a" } },
        { kind: "send", payload: { text: "b" } },
      ]);
    }
    await s.clock.advance(1000);
    expect(s.ran.length).toBe(20);
    expect(peak).toBe(4);
    expect(perChatPeak).toBe(1);
  });

  it("resumes pending and interrupted tasks from the database after a crash", async () => {
    const dbPath = tempDbPath();
    const a = setup({
      dbPath,
      send: () => new Promise<void>(() => {}) /* never returns: the process "dies" mid-send */,
    });
    a.clock.settle = async () => {}; // its send never finishes, so "idle" would never come
    a.scheduler.load();
    a.scheduler.start();
    a.scheduler.add("c1", [
      { kind: "send", payload: { text: "a" } },
      { kind: "send", payload: { text: "b" }, after: [0] },
    ]);
    await a.clock.advance(0);
    expect(a.ran.length).toBe(1);
    a.scheduler.abandon();
    a.db.close();

    const b = setup({ dbPath });
    b.scheduler.load();
    b.scheduler.start();
    await b.clock.advance(1000);
    expect(b.ran.map((r) => r.kind)).toEqual(["send", "send"]);
    expect(b.scheduler.pendingCount).toBe(0);
  });

  it("replanning cancels unstarted tasks; a burst joins the waiting received task", async () => {
    const s = setup();
    s.scheduler.load();
    // Not started: messages join one received task.
    s.scheduler.enqueueReceived("c1", 1, { readDelayMs: 2000 });
    s.scheduler.enqueueReceived("c1", 2, { readDelayMs: 2000 });
    s.scheduler.enqueueReceived("c1", 3, { readDelayMs: 2000 });
    const open = s.scheduler.openTasks("c1");
    expect(open.filter((t) => t.kind === "received").length).toBe(1);
    expect(
      (open.find((t) => t.kind === "received") as Task<"received">).payload.items.map((i) => i.messageId),
    ).toEqual([1, 2, 3]);
    expect((open.find((t) => t.kind === "read") as Task<"read">).payload.maxId).toBe(3);
    s.scheduler.start();
    await s.clock.advance(100);
    // A plan exists now (pretend): add tasks, then a new message cancels them.
    const plan = s.scheduler.add("c1", [
      { kind: "send", payload: { text: "late" }, notBefore: s.clock.now() + 60_000 },
    ]);
    s.scheduler.enqueueReceived("c1", 4, { readDelayMs: 2000 });
    expect(new TaskStore(s.db, "A").get(plan[0]!.id)!.status).toBe("cancelled");
    expect(s.scheduler.openTasks("c1").filter((t) => t.kind === "received").length).toBe(1);
  });

  it("a planning round that made a plan takes its chat's next number, and the tasks it spawns carry its id", async () => {
    // Plans come back without a trace to keep (no trace store is wired here): the outcome says it planned.
    const plans: HandlerOutcome[] = [
      { type: "done" }, // its messages were gone: no plan, no number
      {
        type: "done",
        planned: true,
        spawn: [
          { kind: "send", payload: { text: "one" } },
          { kind: "send", payload: { text: "two" }, after: [0] },
        ],
      },
      { type: "done", planned: true, spawn: [{ kind: "send", payload: { text: "three" } }] },
    ];
    const s = setup({ received: () => plans.shift()! });
    new ChatStore(s.db, "A").upsert({ chatId: "c1", chatType: "group", title: "Club" }); // its plan counter
    s.scheduler.load();
    s.scheduler.start();
    const rounds: number[] = [];
    for (const id of [1, 2, 3]) {
      s.scheduler.enqueueReceived("c1", id, { readDelayMs: 0 });
      rounds.push(s.scheduler.openTasks("c1").find((t) => t.kind === "received")!.id);
      await s.clock.advance(10_000);
    }
    const store = new TaskStore(s.db, "A");
    const rows = store.recentFinished(50);
    const round = (id: number) => rows.find((r) => r.id === id)!;
    expect(rounds.map((id) => round(id).planNo)).toEqual([null, 1, 2]);
    const sends = rows.filter((r) => r.kind === "send");
    expect(sends.map((r) => [JSON.parse(r.payload).text, r.planId])).toEqual([
      ["one", rounds[1]],
      ["two", rounds[1]],
      ["three", rounds[2]],
    ]);
  });
});
