/**
 * The persona's own intentions: what it means to do later in a chat ("ask how the exam went"),
 * in its own words, set by a plan's `schedule` task and kept here until they are due (table
 * `intentions`). life/intentions.ts fires them; planning shows a chat's open ones in
 * its later requests; the owner's `/intentions` and the console list them.
 *
 * States: `pending` (waiting for `not_before`: its due time, or later while it is held — asleep, a
 * takeover silence), `firing` (its planning task is open), `fired` (planned: the model decided
 * what to send then, or nothing), `skipped` (not acted on: paused, a cap, backed off — `reason`
 * says which), `missed` (the process was down past the grace), `cancelled` (a later plan, the
 * owner or the console), `refused` (a plan asked for it over a limit; the reason is told to the
 * chat's next plan among its refusals, so the persona knows it did not set it).
 *
 * Every query is bounded by an index: the next due time and what is due (partial index on the
 * pending ones by time), a chat's (by chat and state), the day's firings (by fire time). So
 * 10,000 pending intentions cost the scheduler's tick nothing and a start one range update.
 */
import { transaction, type Db } from "./db";

export type IntentionState = "pending" | "firing" | "fired" | "skipped" | "missed" | "cancelled" | "refused";

export interface Intention {
  readonly id: number;
  readonly chatId: string;
  readonly topicId?: number;
  /** What the persona means to do, in its own words. */
  readonly note: string;
  /** When it was meant for (ms). */
  readonly dueAt: number;
  /** When it is looked at next (ms): `dueAt`, or later while held. */
  readonly notBefore: number;
  readonly state: IntentionState;
  /** Why it is held, skipped, missed, cancelled or refused. */
  readonly reason?: string;
  /** When it was set (ms). */
  readonly setAt: number;
  /** The message being answered when it was set. */
  readonly inReplyTo?: number;
  /** Whom it was set for (the author of that message): its planning call counts in their share. */
  readonly forUser?: string;
  /** The planning task (`received`) whose plan set it. */
  readonly planId?: number;
  /** The planning task it started when it fired. */
  readonly taskId?: number;
  readonly firedAt?: number;
  /** Its plan sent something. */
  readonly spoke: boolean;
}

interface Row {
  id: number;
  chat_id: string;
  topic_id: number | null;
  note: string;
  due_at: number;
  not_before: number;
  state: IntentionState;
  reason: string | null;
  set_at: number;
  in_reply_to: number | null;
  for_user: string | null;
  plan_id: number | null;
  task_id: number | null;
  fired_at: number | null;
  spoke: number;
}

const toIntention = (r: Row): Intention => ({
  id: r.id,
  chatId: r.chat_id,
  ...(r.topic_id != null ? { topicId: r.topic_id } : {}),
  note: r.note,
  dueAt: r.due_at,
  notBefore: r.not_before,
  state: r.state,
  ...(r.reason != null ? { reason: r.reason } : {}),
  setAt: r.set_at,
  ...(r.in_reply_to != null ? { inReplyTo: r.in_reply_to } : {}),
  ...(r.for_user != null ? { forUser: r.for_user } : {}),
  ...(r.plan_id != null ? { planId: r.plan_id } : {}),
  ...(r.task_id != null ? { taskId: r.task_id } : {}),
  ...(r.fired_at != null ? { firedAt: r.fired_at } : {}),
  spoke: r.spoke === 1,
});

/** A new intention as a plan sets it. */
export interface NewIntention {
  readonly chatId: string;
  readonly topicId?: number;
  readonly note: string;
  readonly dueAt: number;
  readonly setAt: number;
  readonly inReplyTo?: number;
  readonly forUser?: string;
  readonly planId?: number;
}

const COLUMNS = `id, chat_id, topic_id, note, due_at, not_before, state, reason, set_at, in_reply_to, for_user,
  plan_id, task_id, fired_at, spoke`;

export class IntentionStore {
  private readonly s;

  constructor(
    readonly db: Db,
    private readonly agent: string,
  ) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      insert: p(
        `INSERT INTO intentions (agent, chat_id, topic_id, note, due_at, not_before, state, reason, set_at,
           in_reply_to, for_user, plan_id, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      ),
      get: p(`SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND id = ?`),
      shift: p(
        `UPDATE intentions SET not_before = not_before + ?, due_at = due_at + ?, updated_at = ?
         WHERE agent = ? AND state = 'pending'`,
      ),
      newestWrite: p(`SELECT max(updated_at) FROM intentions WHERE agent = ?`).pluck(),
      dropFor: p(
        `UPDATE intentions SET state = 'skipped', reason = ?, updated_at = ?
         WHERE agent = ? AND state = 'pending' AND (chat_id = ? OR for_user = ?) RETURNING ${COLUMNS}`,
      ),
      dropAskerIn: p(
        `UPDATE intentions SET state = 'skipped', reason = ?, updated_at = ?
         WHERE agent = ? AND state = 'pending' AND chat_id = ? AND for_user = ? RETURNING ${COLUMNS}`,
      ),
      callsList: p(
        `SELECT chat_id, for_user FROM intentions WHERE agent = ? AND state = 'pending' AND not_before >= ? AND not_before < ?
         UNION ALL
         SELECT chat_id, for_user FROM intentions WHERE agent = ? AND fired_at >= ? AND fired_at < ?
           AND state IN ('firing','fired')`,
      ),
      setBy: p(
        `SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND chat_id = ? AND plan_id = ? AND note = ? LIMIT 1`,
      ),
      openIn: p(
        `SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND chat_id = ? AND state IN ('pending','firing')
         ORDER BY due_at, id LIMIT ?`,
      ),
      countOpenIn: p(
        `SELECT count(*) FROM intentions WHERE agent = ? AND chat_id = ? AND state IN ('pending','firing')`,
      ).pluck(),
      nextDue: p(`SELECT min(not_before) FROM intentions WHERE agent = ? AND state = 'pending'`).pluck(),
      due: p(
        `SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND state = 'pending' AND not_before <= ?
         ORDER BY not_before, id LIMIT ?`,
      ),
      miss: p(
        `UPDATE intentions SET state = 'missed', reason = ?, updated_at = ?
         WHERE agent = ? AND state = 'pending' AND not_before < ? RETURNING ${COLUMNS}`,
      ),
      pendingBetween: p(
        `SELECT count(*) FROM intentions WHERE agent = ? AND state = 'pending' AND not_before >= ? AND not_before < ?`,
      ).pluck(),
      firedBetween: p(
        `SELECT count(*) FROM intentions WHERE agent = ? AND fired_at >= ? AND fired_at < ?
           AND state IN ('firing','fired')`,
      ).pluck(),
      spokeSince: p(
        `SELECT count(*) FROM intentions WHERE agent = ? AND chat_id = ? AND state = 'fired' AND spoke = 1
           AND fired_at > ?`,
      ).pluck(),
      hold: p(
        `UPDATE intentions SET not_before = ?, reason = ?, updated_at = ? WHERE agent = ? AND id = ? AND state = 'pending'`,
      ),
      settle: p(
        `UPDATE intentions SET state = ?, reason = ?, updated_at = ? WHERE agent = ? AND id = ? AND state = ?`,
      ),
      takeOut: p(
        `UPDATE intentions SET state = 'skipped', reason = ?, task_id = NULL, updated_at = ?
         WHERE agent = ? AND id = ? AND state = 'firing'`,
      ),
      firing: p(
        `UPDATE intentions SET state = 'firing', task_id = ?, fired_at = ?, reason = NULL, updated_at = ?
         WHERE agent = ? AND id = ? AND state = 'pending'`,
      ),
      fired: p(
        `UPDATE intentions SET state = 'fired', spoke = ?, task_id = ?, updated_at = ?
         WHERE agent = ? AND id = ? AND state = 'firing'`,
      ),
      cancel: p(
        `UPDATE intentions SET state = 'cancelled', reason = ?, updated_at = ?
         WHERE agent = ? AND id = ? AND state = 'pending' RETURNING ${COLUMNS}`,
      ),
      reschedule: p(
        `UPDATE intentions SET due_at = ?, not_before = ?, reason = NULL, updated_at = ?
         WHERE agent = ? AND id = ? AND state = 'pending' RETURNING ${COLUMNS}`,
      ),
      openFirst: p(
        `SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND state IN ('pending','firing')
         ORDER BY not_before, id LIMIT ?`,
      ),
      countOpen: p(
        `SELECT count(*) FROM intentions WHERE agent = ? AND state IN ('pending','firing')`,
      ).pluck(),
      recalled: p(
        `SELECT task_id AS taskId, reason FROM intentions WHERE agent = ? AND state = 'skipped'
           AND task_id IS NOT NULL AND updated_at >= ? AND reason LIKE 'skipped: its asker %'`,
      ),
      recentEnded: p(
        `SELECT ${COLUMNS} FROM intentions WHERE agent = ? AND state NOT IN ('pending','firing')
         ORDER BY id DESC LIMIT ?`,
      ),
    };
  }

  /** Run `fn` in one transaction (joins an open one). */
  transaction<T>(fn: () => T): T {
    return transaction(this.db, fn);
  }

  /** Store a new pending intention. */
  add(n: NewIntention): Intention {
    return this.insert(n, "pending", undefined, n.setAt);
  }

  /** Keep an intention a plan asked for and a limit refused (the console and `/intentions` show it). */
  refuse(n: NewIntention, reason: string): Intention {
    return this.insert(n, "refused", reason, n.setAt);
  }

  private insert(n: NewIntention, state: IntentionState, reason: string | undefined, now: number): Intention {
    return this.transaction(() =>
      toIntention(
        this.s.insert.get(
          this.agent,
          n.chatId,
          n.topicId ?? null,
          n.note,
          n.dueAt,
          n.dueAt,
          state,
          reason ?? null,
          n.setAt,
          n.inReplyTo ?? null,
          n.forUser ?? null,
          n.planId ?? null,
          now,
        ) as Row,
      ),
    );
  }

  get(id: number): Intention | undefined {
    const r = this.s.get.get(this.agent, id) as Row | undefined;
    return r ? toIntention(r) : undefined;
  }

  /**
   * The wall clock was set `ms` forward or back: every pending intention keeps its remaining wait
   * (its due time moves with it, so what the persona is told matches when it fires). How many moved.
   */
  shiftPending(ms: number, now: number): number {
    return this.transaction(() => this.s.shift.run(ms, ms, now, this.agent).changes);
  }

  /** When an intention was last written (ms), or undefined when none was. */
  newestWrite(): number | undefined {
    return (this.s.newestWrite.get(this.agent) as number | null) ?? undefined;
  }

  /** Drop every pending intention in a person's DM or asked for by them (`skipped`, with why). */
  dropFor(userId: string, reason: string, now: number): Intention[] {
    return this.transaction(() =>
      (this.s.dropFor.all(reason, now, this.agent, userId, userId) as Row[]).map(toIntention),
    );
  }

  /** Drop the pending intentions a person asked for in one chat (`skipped`, with why): they left it. */
  dropAskerIn(chatId: string, userId: string, reason: string, now: number): Intention[] {
    return this.transaction(() =>
      (this.s.dropAskerIn.all(reason, now, this.agent, chatId, userId) as Row[]).map(toIntention),
    );
  }

  /** The intention a plan already set (or was refused) with this note, if any: a replay adds no second one. */
  setBy(planId: number, chatId: string, note: string): Intention | undefined {
    const r = this.s.setBy.get(this.agent, chatId, planId, note) as Row | undefined;
    return r ? toIntention(r) : undefined;
  }

  /** A chat's pending and firing intentions, soonest first (at most `limit`). */
  openIn(chatId: string, limit = 20): Intention[] {
    return (this.s.openIn.all(this.agent, chatId, limit) as Row[]).map(toIntention);
  }

  countOpenIn(chatId: string): number {
    return this.s.countOpenIn.get(this.agent, chatId) as number;
  }

  /** When the next pending intention is due to be looked at (ms), or undefined when none is pending. */
  nextDue(): number | undefined {
    const v = this.s.nextDue.get(this.agent) as number | null;
    return v ?? undefined;
  }

  /** Pending intentions to look at now, soonest first (at most `limit`). */
  due(now: number, limit: number): Intention[] {
    return (this.s.due.all(this.agent, now, limit) as Row[]).map(toIntention);
  }

  /** Mark every pending intention looked-at-time before `before` missed; returns them. */
  missBefore(before: number, reason: string, now: number): Intention[] {
    return this.transaction(() =>
      (this.s.miss.all(reason, now, this.agent, before) as Row[]).map(toIntention),
    );
  }

  /** Pending intentions due in [from, to) plus those fired then: a day's proactive calls. */
  callsBetween(from: number, to: number): number {
    return (
      (this.s.pendingBetween.get(this.agent, from, to) as number) +
      (this.s.firedBetween.get(this.agent, from, to) as number)
    );
  }

  /** The day's proactive calls (see callsBetween), each with its chat and whom it is for. */
  callsOn(from: number, to: number): { readonly chatId: string; readonly forUser?: string }[] {
    return (
      this.s.callsList.all(this.agent, from, to, this.agent, from, to) as {
        chat_id: string;
        for_user: string | null;
      }[]
    ).map((r) => ({ chatId: r.chat_id, ...(r.for_user != null ? { forUser: r.for_user } : {}) }));
  }

  /** Intentions fired in [from, to) (their planning calls). */
  firedBetween(from: number, to: number): number {
    return this.s.firedBetween.get(this.agent, from, to) as number;
  }

  /** Intentions of a chat whose plans sent something after `since`. */
  spokeSince(chatId: string, since: number): number {
    return this.s.spokeSince.get(this.agent, chatId, since) as number;
  }

  /** Look at a pending intention again at `until`, saying why it waits. */
  hold(id: number, until: number, reason: string, now: number): void {
    this.transaction(() => this.s.hold.run(until, reason, now, this.agent, id));
  }

  /** A pending intention is not acted on (`skipped`), or a firing one's planning ended without a plan. */
  skip(id: number, reason: string, now: number, from: "pending" | "firing" | "fired" = "pending"): void {
    this.transaction(() => this.s.settle.run("skipped", reason, now, this.agent, id, from));
  }

  /**
   * A firing intention taken out of a planning task that goes on for the rest (its asker went):
   * skipped with `reason`, and no longer tied to that task (which is not recalled).
   */
  takeOut(id: number, reason: string, now: number): void {
    this.transaction(() => this.s.takeOut.run(reason, now, this.agent, id));
  }

  /**
   * Planning tasks of intentions skipped because their asker went (life/recall-plans.ts), since
   * `since`: a restart keeps refusing what those plans would still do.
   */
  recalledSince(since: number): { taskId: number; reason: string }[] {
    return this.s.recalled.all(this.agent, since) as { taskId: number; reason: string }[];
  }

  /** A pending intention started its planning task. */
  firing(id: number, taskId: number, now: number): void {
    this.transaction(() => this.s.firing.run(taskId, now, now, this.agent, id));
  }

  /** A firing intention's planning task made its plan (by `taskId`, the one that planned it). */
  fired(id: number, spoke: boolean, taskId: number, now: number): void {
    this.transaction(() => this.s.fired.run(spoke ? 1 : 0, taskId, now, this.agent, id));
  }

  /** Cancel a pending intention; the row, or undefined when it is not pending. */
  cancel(id: number, reason: string, now: number): Intention | undefined {
    return this.transaction(() => {
      const r = this.s.cancel.get(reason, now, this.agent, id) as Row | undefined;
      return r ? toIntention(r) : undefined;
    });
  }

  /** Move a pending intention to `at`; the row, or undefined when it is not pending. */
  reschedule(id: number, at: number, now: number): Intention | undefined {
    return this.transaction(() => {
      const r = this.s.reschedule.get(at, at, now, this.agent, id) as Row | undefined;
      return r ? toIntention(r) : undefined;
    });
  }

  /** Open intentions of every chat, soonest first (at most `limit`), and how many are open in all. */
  open(limit: number): { readonly list: Intention[]; readonly total: number } {
    return {
      list: (this.s.openFirst.all(this.agent, limit) as Row[]).map(toIntention),
      total: this.s.countOpen.get(this.agent) as number,
    };
  }

  /** Intentions that ended (fired, skipped, missed, cancelled, refused), the newest set first. */
  recentEnded(limit: number): Intention[] {
    return (this.s.recentEnded.all(this.agent, limit) as Row[]).map(toIntention);
  }
}
