import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { readEnv } from "../../src/config/env";
import { registry, resetMetrics } from "../../src/metrics/metrics";
import { formatStatus } from "../../src/owner/status";
import { FakeClock } from "../../src/base/clock";
import { batchedWrite, closeDatabase, migrate, openDatabase, type Db } from "../../src/store/db";
import { DepartureStore } from "../../src/store/departures";
import { MemoryStore } from "../../src/store/memories";
import { MessageStore } from "../../src/store/messages";
import { PlanTraceStore } from "../../src/store/plan-traces";
import {
  BATCH_ROWS,
  DEPARTURE_MS,
  VACUUM_PAGES,
  databaseBytes,
  enableIncrementalVacuum,
  isIncremental,
  Retention,
} from "../../src/store/retention";
import { SummaryStore } from "../../src/store/summaries";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";
import { until } from "../support/wait";
import { roomKey } from "../../src/context/lanes";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 25, 12);
const OLD = NOW - 100 * DAY; // older than the default 90 days
const RECENT = NOW - 10 * DAY;

afterEach(() => resetMetrics());

function retention(db: Db, clock = new FakeClock(NOW)) {
  return new Retention({ db, retainDays: 90, clock, logger: captureLogger().logger, roomKey, pauseMs: 0 });
}

const ids = (db: Db, chatId: string) =>
  db
    .prepare("SELECT message_id FROM messages WHERE agent = 'Mira' AND chat_id = ? ORDER BY message_id")
    .pluck()
    .all(chatId) as number[];
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const count = (db: Db, table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;

/**
 * Three chats of one persona: a group it never spoke in, a DM whose summary covers part of its
 * old messages, and a forum where it speaks in one topic (no summary yet) and not in another.
 */
function world(path: string) {
  const db = openDatabase(path);
  const m = new MessageStore(db, "Mira");
  const put = (
    chatId: string,
    id: number,
    date: number,
    o: { isAgent?: boolean; topicId?: number; text?: string } = {},
  ) =>
    m.insert({
      chatId,
      messageId: id,
      senderId: o.isAgent ? "1" : "7",
      senderName: o.isAgent ? "Mira" : "Bob",
      date,
      text: o.text ?? `message ${id}`,
      isAgent: o.isAgent ?? false,
      ...(o.topicId !== undefined ? { topicId: o.topicId } : {}),
    });
  // The group: 1-40 old, 41-45 recent; the persona never spoke there.
  for (const id of range(1, 40)) put("-100", id, OLD + id);
  for (const id of range(41, 45)) put("-100", id, RECENT + id);
  // The DM: old 1-40 (the persona answers every 4th), summary up to 30; recent 41-42.
  for (const id of range(1, 40)) put("42", id, OLD + id, { isAgent: id % 4 === 0 });
  for (const id of range(41, 42)) put("42", id, RECENT + id);
  // A chat whose messages are all old: its newest stays.
  for (const id of range(1, 5)) put("-300", id, OLD + id);
  // The forum: topic 5 (the persona speaks) and topic 7 (it does not), all old, then one recent message.
  for (const id of range(1, 20))
    put("-200", id, OLD + id, { topicId: id % 2 === 0 ? 5 : 7, isAgent: id === 2 });
  put("-200", 21, RECENT, { topicId: 7 });
  m.commit();
  new SummaryStore(db, "Mira").put({
    lane: "root:42",
    chatId: "42",
    version: 1,
    fromId: 1,
    toId: 30,
    content: "{}",
    updatedAt: OLD + 31,
  });
  new MemoryStore(db, "Mira").remember({ chatId: "42", subject: "42", content: "Bob likes tea", now: OLD });
  db.prepare(
    "INSERT INTO entities (agent, peer_id, kind, first_name) VALUES ('Mira', '7', 'user', 'Bob')",
  ).run();
  db.prepare("INSERT INTO update_state (agent, box, pts) VALUES ('Mira', '', 1234)").run();
  db.prepare(
    "INSERT INTO reactions (agent, chat_id, message_id, reactor_id, emoji, date) VALUES ('Mira', '-100', 3, '7', '👍', ?), ('Mira', '-100', 44, '7', '👍', ?)",
  ).run(OLD, RECENT);
  db.prepare(
    "INSERT INTO refusals (agent, chat_id, msg_id, reason, at) VALUES ('Mira', '-100', 3, 'policy: paused by the owner', ?), ('Mira', '-100', 44, 'policy: paused by the owner', ?)",
  ).run(OLD, RECENT);
  const task = db.prepare(
    "INSERT INTO tasks (agent, chat_id, kind, payload, status, not_before, created_at, updated_at) VALUES ('Mira', '42', 'send', '{}', ?, 0, ?, ?)",
  );
  task.run("done", NOW - 20 * DAY, NOW - 20 * DAY); // finished 20 days ago: goes
  task.run("cancelled", NOW - 16 * DAY, NOW - 15 * DAY); // goes
  task.run("pending", NOW - 30 * DAY, NOW - 30 * DAY); // still open (in doubt, say): stays
  task.run("failed", NOW - 13 * DAY, NOW - 13 * DAY); // finished 13 days ago: stays
  task.run("done", NOW - DAY, NOW - DAY); // stays
  return db;
}

describe("retention (RETAIN_DAYS)", () => {
  it("deletes old messages except those waiting for their lane's summary, and finished tasks after 14 days; memories, summaries, entities and update state stay", async () => {
    const db = world(tempDbPath());
    const before = {
      memories: count(db, "memories"),
      summaries: count(db, "lane_summaries"),
      entities: count(db, "entities"),
      state: count(db, "update_state"),
    };
    const r = retention(db);
    const pass = await r.run();

    // Never spoke in the group: every old message goes; the recent ones stay.
    expect(ids(db, "-100")).toEqual(range(41, 45));
    // The DM: the summary covers up to #30; #31-40 wait for the next summary.
    expect(ids(db, "42")).toEqual(range(31, 42));
    // All old: only the newest stays (the catch-up asks for what is above it).
    expect(ids(db, "-300")).toEqual([5]);
    // The forum: topic 7 (the persona never spoke there) is gone; topic 5 waits for its first summary.
    expect(ids(db, "-200")).toEqual([...range(1, 20).filter((id) => id % 2 === 0), 21]);
    expect(pass.waiting).toBe(10 + 10);
    expect(pass.removed.get("Mira")).toEqual({ messages: 40 + 30 + 4 + 10, tasks: 2 });
    expect(r.removed("Mira")).toEqual({ messages: 84, tasks: 2 });

    // Their reactions went with them.
    expect(db.prepare("SELECT message_id FROM reactions").pluck().all()).toEqual([44]);
    // And why they went unanswered (a refusal lives as long as its message).
    expect(db.prepare("SELECT msg_id FROM refusals").pluck().all()).toEqual([44]);
    expect(db.prepare("SELECT status FROM tasks ORDER BY id").pluck().all()).toEqual([
      "pending",
      "failed",
      "done",
    ]);
    expect({
      memories: count(db, "memories"),
      summaries: count(db, "lane_summaries"),
      entities: count(db, "entities"),
      state: count(db, "update_state"),
    }).toEqual(before);

    // The metrics and /status say how much went.
    const metric = (await registry.getSingleMetric("userbot_retention_removed_total")!.get()).values;
    expect(metric).toEqual(
      expect.arrayContaining([
        { labels: { agent: "Mira", what: "messages" }, value: 84 },
        { labels: { agent: "Mira", what: "tasks" }, value: 2 },
      ]),
    );
    const status = formatStatus({
      name: "Mira",
      now: NOW + 3600_000,
      startedAt: NOW,
      connected: true,
      chats: [],
      settings: [],
      pendingTasks: 0,
      usage: {
        calls: 0,
        promptTokens: 0,
        cachedTokens: 0,
        outputTokens: 0,
        thinkingTokens: 0,
        totalTokens: 0,
        costUsd: 0,
        unpricedModels: [],
        byPurpose: {},
      },
      dailyTokenBudget: 1000,
      capped: [],
      storage: {
        bytes: databaseBytes(db),
        retainDays: 90,
        removedMessages: 84,
        removedTasks: 2,
        lastPassAt: r.last!.at,
      },
    });
    expect(status).toMatch(
      /^Storage: \d+\.\d MB; messages kept 90 days; removed since start: 84 messages, 2 finished tasks \(last pass 1h 00m ago\)$/m,
    );

    // A second pass finds nothing more; a summary that reaches further lets the waiting ones go.
    expect((await r.run()).removed.size).toBe(0);
    new SummaryStore(db, "Mira").put({
      lane: "root:42",
      chatId: "42",
      version: 2,
      fromId: 1,
      toId: 40,
      content: "{}",
      updatedAt: NOW,
    });
    await r.run();
    expect(ids(db, "42")).toEqual([41, 42]);
    expect(r.removed("Mira").messages).toBe(94);
    closeDatabase(db);
  });

  it("who left or was removed from a group is forgotten a day later (nothing it could still refuse); a block is kept", async () => {
    const db = openDatabase(tempDbPath());
    const departures = new DepartureStore(db, "Mira");
    departures.left("-100", "7", "left", 50, NOW - DEPARTURE_MS - 1);
    departures.left("-100", "8", "removed", 51, NOW - DEPARTURE_MS + 60_000);
    departures.blocked("9", NOW - 30 * DAY);
    await retention(db).run();
    expect(db.prepare("SELECT user_id, how FROM departures ORDER BY user_id").all()).toEqual([
      { user_id: "8", how: "removed" },
      { user_id: "9", how: "blocked" },
    ]);
    expect(departures.goneSince("-100", "7", 10)).toBeUndefined();
    expect(departures.goneSince("-100", "8", 10)).toBe("removed");
    closeDatabase(db);
  });

  it("a finished task's plan trace goes with it, and an instruction no trace uses any more; a kept task keeps its trace and its instruction", async () => {
    const db = openDatabase(tempDbPath());
    const task = db.prepare(
      "INSERT INTO tasks (agent, chat_id, kind, payload, status, not_before, created_at, updated_at) VALUES ('Mira', '-100', 'received', '{}', ?, 0, ?, ?)",
    );
    const id = (status: string, at: number) => Number(task.run(status, at, at).lastInsertRowid);
    const traces = new PlanTraceStore(db);
    const old = id("done", NOW - 20 * DAY);
    const oldToo = id("done", NOW - 20 * DAY);
    const open = id("pending", NOW - 20 * DAY);
    const kept = id("done", NOW - DAY);
    traces.put(old, "the old instruction", { plan: { tasks: [] } });
    traces.put(oldToo, "the current instruction", { plan: { tasks: [] } });
    traces.put(open, "the current instruction", { plan: { tasks: [] } });
    traces.put(kept, "the current instruction", { plan: { tasks: ["kept"] } });
    expect(count(db, "plan_instructions")).toBe(2);

    const pass = await retention(db).run();
    expect(pass.removed.get("Mira")?.tasks).toBe(2);
    expect(traces.get(old)).toBeUndefined();
    expect(traces.get(oldToo)).toBeUndefined();
    expect(traces.get(open)?.instruction).toBe("the current instruction");
    expect(traces.get(kept)).toEqual({
      instruction: "the current instruction",
      trace: { plan: { tasks: ["kept"] } },
    });
    expect(db.prepare("SELECT text FROM plan_instructions").pluck().all()).toEqual([
      "the current instruction",
    ]);
    closeDatabase(db);
  });

  it("works in batches of at most BATCH_ROWS rows and gives the space back (incremental vacuum); inbound writes in between are kept", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    expect(isIncremental(db)).toBe(true); // a new database is made with incremental vacuum
    const m = new MessageStore(db, "Mira");
    const n = 3 * BATCH_ROWS + 17;
    for (let id = 1; id <= n; id++)
      m.insert({
        chatId: "-100",
        messageId: id,
        senderId: "7",
        senderName: "Bob",
        date: OLD,
        text: "x".repeat(300),
        isAgent: false,
      });
    m.insert({
      chatId: "-100",
      messageId: n + 1,
      senderId: "7",
      senderName: "Bob",
      date: NOW,
      text: "new",
      isAgent: false,
    });
    m.commit();
    db.pragma("wal_checkpoint(TRUNCATE)");
    const bytes = databaseBytes(db);
    const r = retention(db);
    // The inbound path keeps writing (group commit) while the pass runs.
    let written = 0;
    const writer = setInterval(() => {
      batchedWrite(db, () =>
        m.insert({
          chatId: "-500",
          messageId: ++written,
          senderId: "7",
          senderName: "Bob",
          date: NOW,
          text: "live",
          isAgent: false,
        }),
      );
    }, 0);
    const pass = await r.run();
    clearInterval(writer);
    m.commit();
    expect(pass.removed.get("Mira")!.messages).toBe(n);
    expect(pass.pagesFreed).toBeGreaterThan(0);
    // Deletions in batches of at most BATCH_ROWS (fewer when one takes 10 ms), then the vacuum in steps of VACUUM_PAGES.
    expect(pass.batches).toBeGreaterThanOrEqual(
      Math.ceil(n / BATCH_ROWS) + Math.ceil(pass.pagesFreed / VACUUM_PAGES),
    );
    expect(pass.batches).toBeLessThan(n / 4);
    expect(ids(db, "-100")).toEqual([n + 1]);
    expect(written).toBeGreaterThan(0);
    expect(ids(db, "-500")).toEqual(range(1, written));
    expect(databaseBytes(db)).toBeLessThan(bytes / 2);
    db.pragma("wal_checkpoint(TRUNCATE)");
    expect(statSync(path).size).toBeLessThan(bytes / 2);
    closeDatabase(db);
  });

  it("a database made before retention is switched to incremental vacuum once, losing nothing", () => {
    const path = tempDbPath();
    const raw = new Database(path);
    raw.pragma("journal_mode = WAL");
    migrate(raw); // the tables, without auto_vacuum: as every database made before this change
    raw
      .prepare(
        "INSERT INTO memories (agent, chat_id, content, created_at) VALUES ('Mira', '42', 'Bob likes tea', 1)",
      )
      .run();
    raw.close();
    const db = openDatabase(path);
    expect(isIncremental(db)).toBe(false);
    expect(enableIncrementalVacuum(db)).toBe(true);
    expect(isIncremental(db)).toBe(true);
    expect(enableIncrementalVacuum(db)).toBe(false);
    expect(db.prepare("SELECT content FROM memories").pluck().all()).toEqual(["Bob likes tea"]);
    closeDatabase(db);
  });

  it("runs in the background: first pass after a delay, then on a timer", async () => {
    const db = world(tempDbPath());
    const clock = new FakeClock(NOW);
    const r = new Retention({
      db,
      retainDays: 90,
      clock,
      logger: captureLogger().logger,
      roomKey,
      pauseMs: 0,
      firstAfterMs: 60_000,
      everyMs: 3600_000,
    });
    r.start();
    await clock.advance(59_000);
    expect(r.last).toBeUndefined();
    await clock.advance(1_000);
    // The pass breathes in real time between its batches: wait for it to end, not for a time.
    await until(() => r.last !== undefined);
    expect(r.last?.pass.removed.get("Mira")?.messages).toBe(84);
    await r.stop();
    closeDatabase(db);
  });

  it("a background pass the database refuses is one error line naming the file and what to do", async () => {
    const path = tempDbPath();
    const db = world(path);
    const other = new Database(path);
    other.exec("ALTER TABLE messages RENAME TO messages_gone");
    other.close();
    const clock = new FakeClock(NOW);
    const log = captureLogger();
    const r = new Retention({
      db,
      retainDays: 90,
      clock,
      logger: log.logger,
      roomKey,
      pauseMs: 0,
      firstAfterMs: 1_000,
    });
    r.start();
    await clock.advance(1_000);
    const failures = () => log.lines().filter((l) => l.msg === "retention pass failed");
    await until(() => failures().length > 0);
    const failed = failures();
    expect(failed).toHaveLength(1);
    expect(failed[0]!.err).toEqual(expect.stringContaining(`${path}: no such table: messages`));
    await r.stop();
    closeDatabase(db);
  });

  it("RETAIN_DAYS defaults to 90 and must be a whole number of days, at least 1", () => {
    expect(readEnv({}).RETAIN_DAYS).toBe(90);
    expect(readEnv({ RETAIN_DAYS: "30" }).RETAIN_DAYS).toBe(30);
    expect(() => readEnv({ RETAIN_DAYS: "0" })).toThrow(
      /RETAIN_DAYS: bad value "0" \(expected a whole number of days from 1/,
    );
    expect(() => readEnv({ RETAIN_DAYS: "two weeks" })).toThrow(/RETAIN_DAYS: bad value "two weeks"/);
    expect(readEnv({ RETAIN_DAYS: "1_000" }).RETAIN_DAYS).toBe(1000);
  });
});
