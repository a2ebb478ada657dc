/**
 * The grounded calls of each look-up task (docs/world.md, "A restart during a look-up"): how many
 * were started and what the last one came to, durable before and after the call, so a look-up is
 * paid for once like a send is sent once. A restart after the call answered finds its result here
 * and plans with it (no second call); a restart in the middle of a call finds it started and not
 * ended — the call is asked once more at most, and the lost one counts against the day's caps
 * (store/lookups.ts). Rows older than a week are dropped as new ones start (a look-up answers
 * within the answer-age limit, an hour).
 */
import { transaction, type Db } from "./db";

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const KEEP_MS = 7 * 86_400_000;

export interface LookupRun {
  /** Grounded calls started for the task so far. */
  readonly calls: number;
  /** What the last call came to (JSON of the task's note), once it answered or failed. */
  readonly note?: string;
}

export class LookupRunStore {
  private readonly getStmt;
  private readonly startStmt;
  private readonly endStmt;
  private readonly pruneStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.getStmt = db.prepare(`SELECT calls, note FROM lookup_runs WHERE agent = ? AND task_id = ?`);
    this.startStmt = db.prepare(
      `INSERT INTO lookup_runs (agent, task_id, chat_id, user_id, day, calls, note, started_at)
       VALUES (@agent, @task, @chat, @user, @day, 1, NULL, @now)
       ON CONFLICT (agent, task_id) DO UPDATE SET calls = calls + 1, note = NULL, started_at = @now`,
    );
    this.endStmt = db.prepare(`UPDATE lookup_runs SET note = ? WHERE agent = ? AND task_id = ?`);
    this.pruneStmt = db.prepare(`DELETE FROM lookup_runs WHERE agent = ? AND started_at < ?`);
  }

  /** The task's calls so far; undefined when none was started. */
  get(taskId: number): LookupRun | undefined {
    const r = this.getStmt.get(this.agent, taskId) as { calls: number; note: string | null } | undefined;
    return r && { calls: r.calls, ...(r.note !== null ? { note: r.note } : {}) };
  }

  /** A call is about to be made (durable before it goes out). */
  start(taskId: number, chatId: string, userId: string | undefined, now: number): void {
    transaction(this.db, () => {
      this.pruneStmt.run(this.agent, now - KEEP_MS);
      this.startStmt.run({
        agent: this.agent,
        task: taskId,
        chat: chatId,
        user: userId ?? null,
        day: utcDay(now),
        now,
      });
    });
  }

  /** The call answered or failed: what it came to (durable before the task is marked done). */
  end(taskId: number, note: string): void {
    transaction(this.db, () => this.endStmt.run(note, this.agent, taskId));
  }
}
