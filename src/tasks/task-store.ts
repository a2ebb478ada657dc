import { transaction, type Db } from "../store/db";
import { newRandomId } from "./random-id";
import type { NewTask, Task, TaskKind, TaskStatus } from "./task";

interface Row {
  id: number;
  chat_id: string;
  kind: string;
  payload: string;
  status: TaskStatus;
  depends_on: string;
  not_before: number;
  attempts: number;
  random_id: string | null;
  created_at: number;
  error: string | null;
  in_doubt: number;
  topic_id: number | null;
  plan_id: number | null;
  plan_no: number | null;
}

const toTask = (r: Row): Task => ({
  id: r.id,
  chatId: r.chat_id,
  ...(r.topic_id != null ? { topicId: r.topic_id } : {}),
  kind: r.kind as TaskKind,
  payload: JSON.parse(r.payload) as Task["payload"],
  status: r.status,
  dependsOn: JSON.parse(r.depends_on) as number[],
  notBefore: r.not_before,
  attempts: r.attempts,
  ...(r.random_id != null ? { randomId: r.random_id } : {}),
  createdAt: r.created_at,
  ...(r.error != null ? { error: r.error } : {}),
  ...(r.in_doubt === 1 ? { inDoubt: true } : {}),
  ...(r.plan_id != null ? { planId: r.plan_id } : {}),
  ...(r.plan_no != null ? { planNo: r.plan_no } : {}),
});

/** A finished task as the activity feed reads it (recentFinished). */
export interface FinishedTaskRow {
  readonly id: number;
  readonly chatId: string;
  readonly kind: string;
  readonly payload: string;
  readonly status: string;
  readonly error: string | null;
  readonly updatedAt: number;
  readonly planId: number | null;
  readonly planNo: number | null;
}

/**
 * Durable task rows of one agent. Every state change is its own SQLite statement inside the
 * caller's transaction (see `transaction`), so a crash leaves either the old or the new state.
 */
export class TaskStore {
  private readonly insertStmt;
  private readonly updateStmt;
  private readonly openStmt;
  private readonly getStmt;
  private readonly countPlanStmt;
  private readonly recentStmt;
  private readonly numberPlanStmt;
  private readonly recentChatsStmt;

  constructor(
    readonly db: Db,
    readonly agent: string,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO tasks (agent, chat_id, topic_id, kind, payload, status, depends_on, not_before, attempts, random_id, created_at, updated_at, plan_id)
       VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, 0, ?, ?, ?, ?)`,
    );
    this.updateStmt = db.prepare(
      `UPDATE tasks SET payload = ?, status = ?, not_before = ?, attempts = ?, error = ?, in_doubt = ?, updated_at = ? WHERE id = ?`,
    );
    this.openStmt = db.prepare(
      `SELECT * FROM tasks WHERE agent = ? AND status IN ('pending','running') ORDER BY id`,
    );
    this.getStmt = db.prepare(`SELECT * FROM tasks WHERE id = ?`);
    this.countPlanStmt = db
      .prepare(`UPDATE chats SET plans = plans + 1 WHERE agent = ? AND chat_id = ? RETURNING plans`)
      .pluck();
    this.numberPlanStmt = db.prepare(`UPDATE tasks SET plan_no = ? WHERE id = ?`);
    // The primary key, newest first (the unary + keeps SQLite off the agent's indexes, which would
    // sort every task of the persona): the agent's newest finished rows among the newest tasks.
    this.recentStmt = db.prepare(
      `SELECT * FROM (SELECT id, chat_id AS chatId, kind, payload, status, error, updated_at AS updatedAt,
         plan_id AS planId, plan_no AS planNo FROM tasks
       WHERE +agent = ? AND +status IN ('done','failed','cancelled') ORDER BY id DESC LIMIT ?) ORDER BY id`,
    );
    // tasks_chat (agent, chat_id, created_at): the persona's index entries, the table only for
    // the recent ones. Once, at the start.
    this.recentChatsStmt = db.prepare(
      `SELECT chat_id AS chatId, max(created_at) AS at FROM tasks
       WHERE agent = ? AND created_at >= ? AND kind IN ('received','send','sticker') GROUP BY chat_id`,
    );
  }

  /** Run `fn` in one SQLite transaction (nested calls join the outer one). */
  transaction<T>(fn: () => T): T {
    return transaction(this.db, fn);
  }

  /**
   * Insert a batch of new tasks for one graph (a chat, or a forum topic of it); returns them with
   * their ids, in batch order. `planId`: the `received` task whose plan made them.
   */
  create(chatId: string, batch: readonly NewTask[], now: number, topicId?: number, planId?: number): Task[] {
    return this.transaction(() => {
      const made: Task[] = [];
      for (const t of batch) {
        const deps = [...(t.dependsOn ?? []), ...(t.after ?? []).map((i) => made[i]!.id)];
        const randomId = t.needsRandomId ? newRandomId() : undefined;
        const notBefore = t.notBefore ?? now;
        const res = this.insertStmt.run(
          this.agent,
          chatId,
          topicId ?? null,
          t.kind,
          JSON.stringify(t.payload),
          JSON.stringify(deps),
          notBefore,
          randomId ?? null,
          now,
          now,
          planId ?? null,
        );
        made.push({
          id: Number(res.lastInsertRowid),
          chatId,
          ...(topicId !== undefined ? { topicId } : {}),
          kind: t.kind,
          payload: t.payload,
          status: "pending",
          dependsOn: deps,
          notBefore,
          attempts: 0,
          ...(randomId ? { randomId } : {}),
          createdAt: now,
          ...(planId !== undefined ? { planId } : {}),
        });
      }
      return made;
    });
  }

  /** Persist the mutable fields of a task as they are now. */
  save(t: Task, now: number): void {
    // Always durable: inside a caller's transaction this nests; alone, it commits the inbound batch first.
    this.transaction(() =>
      this.updateStmt.run(
        JSON.stringify(t.payload),
        t.status,
        t.notBefore,
        t.attempts,
        t.error ?? null,
        t.inDoubt ? 1 : 0,
        now,
        t.id,
      ),
    );
  }

  /**
   * A planning round of a `received` task ended (a plan was made, or planning failed for good):
   * it takes the next number of its chat (chats.plans: never reused, whatever retention deleted).
   * Inside the caller's transaction. A chat with no stored row gets no number.
   */
  numberPlan(task: Task): void {
    const no = this.countPlanStmt.get(this.agent, task.chatId) as number | undefined;
    if (no === undefined) return;
    this.numberPlanStmt.run(no, task.id);
    task.planNo = no;
  }

  /** The newest finished tasks (by id), oldest first: the console's activity after a restart. */
  recentFinished(limit: number): FinishedTaskRow[] {
    return this.recentStmt.all(this.agent, limit) as FinishedTaskRow[];
  }

  /**
   * Chats where the persona was addressed (a `received` task) or spoke (`send`, `sticker`) since
   * `since` (ms), with the latest such moment: the active chats after a restart.
   */
  recentChats(since: number): { chatId: string; at: number }[] {
    return this.recentChatsStmt.all(this.agent, since) as { chatId: string; at: number }[];
  }

  /** Every task not finished yet (pending or running), oldest first. */
  loadOpen(): Task[] {
    return (this.openStmt.all(this.agent) as Row[]).map(toTask);
  }

  get(id: number): Task | undefined {
    const r = this.getStmt.get(id) as Row | undefined;
    return r ? toTask(r) : undefined;
  }
}
