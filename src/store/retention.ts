/**
 * Bounded storage (README "Storage"): messages older than RETAIN_DAYS and finished tasks older
 * than FINISHED_TASK_DAYS (with their plan traces) are deleted, and the pages they held are given back to the file system
 * (incremental vacuum). Memories, summaries, entities, update state, usage and rate limits are
 * never touched.
 *
 * Exceptions, so nothing the persona still needs disappears:
 * - a message of a room (the chat, or a forum topic) the persona talks in (it has a message there,
 *   or a summary of it) that the room's summary does not cover yet (id above the summary's
 *   `to_id`, or no summary yet) waits for the summary;
 * - each chat's newest message stays (the catch-up asks Telegram for what is above it).
 *
 * It works in small batches (BATCH_ROWS rows, one short transaction each, a pause between), so
 * the inbound path's group commit never waits long for the writer, and walks chats by index seeks
 * (one chat at a time) instead of scanning the table.
 */
import type { Logger } from "pino";
import { metrics } from "../metrics/metrics";
import { systemClock } from "../base/clock";
import { sleep } from "../base/timeout";
import type { Clock } from "../base/types";
import { describeDbFailure, transaction, type Db } from "./db";

export const DEFAULT_RETAIN_DAYS = 90;
/** Finished tasks (done, failed, cancelled) are kept this long after they ended. */
export const FINISHED_TASK_DAYS = 14;
/** Rows per delete transaction, at most. */
export const BATCH_ROWS = 200;
/**
 * Who left or was removed from a group (store/departures.ts) is kept this long: it refuses only a
 * reminder a plan asked for before they went, and that plan's tasks run within the answer-age
 * limit (an hour by default). A block is kept until she unblocks.
 */
export const DEPARTURE_MS = 86_400_000;
/** A delete transaction stops taking rows after this long (it holds the writer meanwhile). */
const BATCH_BUDGET_MS = 10;
/** Pages given back per incremental-vacuum step. */
export const VACUUM_PAGES = 128;
const DAY_MS = 86_400_000;

/** What a persona's rows lost to retention. */
export interface RetentionCounts {
  messages: number;
  tasks: number;
}

/** What one pass did. */
export interface RetentionPass {
  readonly removed: ReadonlyMap<string, RetentionCounts>;
  /** Old messages kept because their lane's summary does not cover them yet. */
  readonly waiting: number;
  readonly pagesFreed: number;
  readonly batches: number;
  /** The longest single write transaction of the pass, its commit included (and the WAL checkpoint a commit may run), ms. */
  readonly longestBatchMs: number;
  /** The longest time spent deleting inside one transaction, ms (what the batch limits bound). */
  readonly longestBodyMs: number;
  readonly ms: number;
}

export interface RetentionOptions {
  readonly db: Db;
  readonly retainDays: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The lane key of a message's room, as summaries are keyed (context/lanes.ts `roomKey`). */
  readonly roomKey: (chatId: string, topicId: number | undefined) => string;
  /** Pause between batches (default 20 ms): room for the inbound path. */
  readonly pauseMs?: number;
  /** First pass this long after `start()` (default 10 min: after the start's catch-up). */
  readonly firstAfterMs?: number;
  /** Then every (default 6 h). */
  readonly everyMs?: number;
}

interface MessageRow {
  message_id: number;
  date: number;
  topic_id: number | null;
  thread_root: number | null;
  is_agent: number;
}

/** The retention job of one database (every persona in it). */
export class Retention {
  private readonly totals = new Map<string, RetentionCounts>();
  private lastPass: { at: number; pass: RetentionPass } | undefined;
  private timer: unknown;
  private running: Promise<RetentionPass> | undefined;
  private stopped = false;
  private readonly nextChat;
  private readonly maxId;
  private readonly page;
  private readonly agentLanes;
  private readonly summaryEnds;
  private readonly deleteMessage;
  private readonly deleteReactions;
  private readonly deleteRefusal;
  private readonly taskPage;
  private readonly deleteTask;
  private readonly deleteDepartures;
  private readonly deleteTrace;
  private readonly deleteInstructions;

  constructor(private readonly o: RetentionOptions) {
    const db = o.db;
    this.nextChat = db.prepare(
      `SELECT agent, chat_id FROM messages WHERE (agent, chat_id) > (?, ?) ORDER BY agent, chat_id LIMIT 1`,
    );
    this.maxId = db.prepare(`SELECT max(message_id) FROM messages WHERE agent = ? AND chat_id = ?`).pluck();
    this.page = db.prepare(
      `SELECT message_id, date, topic_id, thread_root, is_agent FROM messages WHERE agent = ? AND chat_id = ? AND message_id > ? ORDER BY message_id LIMIT ?`,
    );
    this.agentLanes = db.prepare(
      `SELECT DISTINCT topic_id FROM messages WHERE agent = ? AND chat_id = ? AND is_agent = 1`,
    );
    this.summaryEnds = db.prepare(`SELECT chat_id, lane, to_id FROM lane_summaries WHERE agent = ?`);
    this.deleteMessage = db.prepare(
      `DELETE FROM messages WHERE agent = ? AND chat_id = ? AND message_id = ?`,
    );
    this.deleteReactions = db.prepare(
      `DELETE FROM reactions WHERE agent = ? AND chat_id = ? AND message_id = ?`,
    );
    // Why an addressed message went unanswered (store/refusals.ts) is kept as long as the message.
    this.deleteRefusal = db.prepare(`DELETE FROM refusals WHERE agent = ? AND chat_id = ? AND msg_id = ?`);
    this.taskPage = db.prepare(
      `SELECT id, agent, status, created_at, updated_at FROM tasks WHERE id > ? ORDER BY id LIMIT ?`,
    );
    this.deleteTask = db.prepare(`DELETE FROM tasks WHERE id = ?`);
    this.deleteDepartures = db.prepare(`DELETE FROM departures WHERE how IN ('left','removed') AND at < ?`);
    // A finished task's plan trace goes with it (store/plan-traces.ts), then the instructions no trace uses.
    this.deleteTrace = db.prepare(`DELETE FROM plan_traces WHERE task_id = ?`);
    this.deleteInstructions = db.prepare(
      `DELETE FROM plan_instructions WHERE NOT EXISTS (SELECT 1 FROM plan_traces t WHERE t.instruction = plan_instructions.sha256)`,
    );
  }

  /** Run passes in the background: the first after `firstAfterMs`, then every `everyMs`. */
  start(): void {
    this.schedule(this.o.firstAfterMs ?? 10 * 60_000);
  }

  /** No new pass; a pass in progress stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** Rows removed from this persona since the process started (for /status and the metrics). */
  removed(agent: string): RetentionCounts {
    return { ...(this.totals.get(agent) ?? { messages: 0, tasks: 0 }) };
  }

  /** When the last pass ended and what it did. */
  get last(): { readonly at: number; readonly pass: RetentionPass } | undefined {
    return this.lastPass;
  }

  get retainDays(): number {
    return this.o.retainDays;
  }

  /** One pass now (or the one running). */
  run(): Promise<RetentionPass> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.run()
        .catch((e: unknown) =>
          this.o.logger.error(
            { component: "retention", err: String(describeDbFailure(e, this.o.db.name)) },
            "retention pass failed",
          ),
        )
        .finally(() => this.schedule(this.o.everyMs ?? 6 * 3600_000));
    }, ms);
  }

  private async pass(): Promise<RetentionPass> {
    const t0 = performance.now();
    const now = this.o.clock.now();
    const removed = new Map<string, RetentionCounts>();
    const count = (agent: string) => {
      let c = removed.get(agent);
      if (!c) removed.set(agent, (c = { messages: 0, tasks: 0 }));
      return c;
    };
    let batches = 0;
    let longest = 0;
    let longestBody = 0;
    let waiting = 0;
    /** One short write transaction, timed; then a pause for everyone else. */
    const write = async (fn: () => void) => {
      const s = performance.now();
      transaction(this.o.db, () => {
        const b = performance.now();
        fn();
        longestBody = Math.max(longestBody, performance.now() - b);
      });
      longest = Math.max(longest, performance.now() - s);
      batches++;
      await this.breathe();
    };
    /**
     * Apply `each` to every item, in transactions of at most BATCH_ROWS items that also stop
     * after BATCH_BUDGET_MS (rows of many chats sit on as many pages, some not in the cache).
     */
    const writeAll = async <T>(items: readonly T[], each: (item: T) => void) => {
      for (let i = 0; i < items.length;) {
        await write(() => {
          const until = performance.now() + BATCH_BUDGET_MS;
          const end = Math.min(items.length, i + BATCH_ROWS);
          do each(items[i++]!);
          while (i < end && performance.now() < until);
        });
      }
    };

    // Messages, chat by chat; deletions of several chats share a batch.
    const cutoff = now - this.o.retainDays * DAY_MS;
    let doomed: { agent: string; chatId: string; id: number }[] = [];
    const flush = async () => {
      if (doomed.length === 0) return;
      const batch = doomed;
      doomed = [];
      await writeAll(batch, (d) => {
        this.deleteMessage.run(d.agent, d.chatId, d.id);
        this.deleteReactions.run(d.agent, d.chatId, d.id);
        this.deleteRefusal.run(d.agent, d.chatId, d.id);
      });
      for (const d of batch) count(d.agent).messages++;
    };
    /** How far each lane's summary reaches, per chat, of the persona whose chats are being walked (read once per persona). */
    let summaries: { agent: string; byChat: Map<string, Map<string, number>> } | undefined;
    let key: [string, string] = ["", ""];
    for (;;) {
      if (this.stopped) break;
      const next = this.nextChat.get(key[0], key[1]) as { agent: string; chat_id: string } | undefined;
      if (!next) break;
      key = [next.agent, next.chat_id];
      const { agent, chat_id: chatId } = next;
      const newest = this.maxId.get(agent, chatId) as number;
      let lanes: { talked: Set<string>; covered: Map<string, number> } | undefined;
      let after = Number.MIN_SAFE_INTEGER;
      for (let done = false; !done && !this.stopped;) {
        const rows = this.page.all(agent, chatId, after, BATCH_ROWS) as MessageRow[];
        if (rows.length === 0) break;
        for (const r of rows) {
          after = r.message_id;
          // Telegram's dates grow with the id; the persona's own rows carry the local clock.
          if (r.message_id === newest || (r.date >= cutoff && r.is_agent === 0)) {
            done = true;
            break;
          }
          if (r.date >= cutoff) continue;
          if (summaries?.agent !== agent) summaries = { agent, byChat: this.summariesOf(agent) };
          lanes ??= this.lanesOf(agent, chatId, summaries.byChat.get(chatId));
          const lane = this.o.roomKey(chatId, r.topic_id ?? undefined);
          const to = lanes.covered.get(lane);
          if (to !== undefined ? r.message_id > to : lanes.talked.has(lane)) {
            waiting++;
            continue;
          }
          doomed.push({ agent, chatId, id: r.message_id });
          if (doomed.length >= BATCH_ROWS) await flush();
        }
        if (rows.length < BATCH_ROWS) break;
      }
    }
    await flush();

    // Finished tasks: ids grow with creation time, so the walk ends at the first task created after the cutoff.
    const taskCutoff = now - FINISHED_TASK_DAYS * DAY_MS;
    let afterId = 0;
    let tasksRemoved = 0;
    for (let done = false; !done && !this.stopped;) {
      const rows = this.taskPage.all(afterId, BATCH_ROWS) as {
        id: number;
        agent: string;
        status: string;
        created_at: number;
        updated_at: number;
      }[];
      if (rows.length === 0) break;
      const doomed: { id: number; agent: string }[] = [];
      for (const r of rows) {
        afterId = r.id;
        if (r.created_at >= taskCutoff) {
          done = true;
          break;
        }
        if (
          (r.status === "done" || r.status === "failed" || r.status === "cancelled") &&
          r.updated_at < taskCutoff
        )
          doomed.push(r);
      }
      if (doomed.length > 0) {
        await writeAll(doomed, (t) => {
          this.deleteTrace.run(t.id);
          this.deleteTask.run(t.id);
        });
        for (const t of doomed) count(t.agent).tasks++;
        tasksRemoved += doomed.length;
      }
      if (rows.length < BATCH_ROWS) break;
    }
    // A few distinct instructions (one per persona prompt and chat type): one short statement.
    if (tasksRemoved > 0 && !this.stopped) await write(() => this.deleteInstructions.run());

    // Departures past their use: rare rows, one short statement.
    if (!this.stopped) await write(() => this.deleteDepartures.run(now - DEPARTURE_MS));

    // Give the space back, a few pages at a time.
    const pagesBefore = this.o.db.pragma("page_count", { simple: true }) as number;
    while (!this.stopped && isIncremental(this.o.db)) {
      const free = this.o.db.pragma("freelist_count", { simple: true }) as number;
      if (free === 0) break;
      // exec, not a prepared statement: each step of that statement frees one page.
      await write(() => this.o.db.exec(`PRAGMA incremental_vacuum(${Math.min(free, VACUUM_PAGES)})`));
    }
    const pagesFreed = pagesBefore - (this.o.db.pragma("page_count", { simple: true }) as number);

    for (const [agent, c] of removed) {
      const t = this.totals.get(agent) ?? { messages: 0, tasks: 0 };
      t.messages += c.messages;
      t.tasks += c.tasks;
      this.totals.set(agent, t);
      if (c.messages > 0) metrics.retentionRemoved.inc({ agent, what: "messages" }, c.messages);
      if (c.tasks > 0) metrics.retentionRemoved.inc({ agent, what: "tasks" }, c.tasks);
    }
    const pass: RetentionPass = {
      removed,
      waiting,
      pagesFreed,
      batches,
      longestBatchMs: longest,
      longestBodyMs: longestBody,
      ms: Math.round(performance.now() - t0),
    };
    this.lastPass = { at: this.o.clock.now(), pass };
    const messages = [...removed.values()].reduce((a, c) => a + c.messages, 0);
    const tasks = [...removed.values()].reduce((a, c) => a + c.tasks, 0);
    this.o.logger.info(
      {
        component: "retention",
        messages,
        tasks,
        waiting,
        pagesFreed,
        batches,
        longestBatchMs: Math.round(longest * 10) / 10,
        ms: pass.ms,
      },
      `retention: removed ${messages} messages older than ${this.o.retainDays} days and ${tasks} finished tasks; ${waiting} old messages wait for their lane's summary`,
    );
    return pass;
  }

  /** The lanes of a chat the persona talks in, and how far each lane's summary reaches. */
  private lanesOf(
    agent: string,
    chatId: string,
    covered = new Map<string, number>(),
  ): { talked: Set<string>; covered: Map<string, number> } {
    const talked = new Set<string>();
    for (const r of this.agentLanes.all(agent, chatId) as { topic_id: number | null }[]) {
      talked.add(this.o.roomKey(chatId, r.topic_id ?? undefined));
    }
    return { talked, covered };
  }

  /** Every summary's reach (lane → to_id) of a persona, by chat. */
  private summariesOf(agent: string): Map<string, Map<string, number>> {
    const byChat = new Map<string, Map<string, number>>();
    for (const r of this.summaryEnds.all(agent) as { chat_id: string; lane: string; to_id: number }[]) {
      let m = byChat.get(r.chat_id);
      if (!m) byChat.set(r.chat_id, (m = new Map()));
      m.set(r.lane, r.to_id);
    }
    return byChat;
  }

  private breathe(): Promise<void> {
    // Real time, not the runtime's clock: this pause lets the process's other work through.
    return sleep(this.o.pauseMs ?? 20, systemClock);
  }
}

/** True when the database gives freed pages back on `incremental_vacuum`. */
export function isIncremental(db: Db): boolean {
  return db.pragma("auto_vacuum", { simple: true }) === 2;
}

/** Size of the database file in bytes (pages in use and free; the WAL aside). */
export function databaseBytes(db: Db): number {
  return (
    (db.pragma("page_count", { simple: true }) as number) *
    (db.pragma("page_size", { simple: true }) as number)
  );
}

/**
 * A database made before retention existed has no incremental vacuum: switch it on, which takes
 * one full VACUUM (the whole file is rewritten once; the writer is held meanwhile). Returns true
 * when it did.
 */
export function enableIncrementalVacuum(db: Db): boolean {
  if (isIncremental(db)) return false;
  db.pragma("auto_vacuum = INCREMENTAL");
  db.exec("VACUUM");
  return true;
}
