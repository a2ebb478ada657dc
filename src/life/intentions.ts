/**
 * The persona's own intentions, kept and fired: a plan's `schedule` sets one ("ask how the exam
 * went", tomorrow at 18:00), the store keeps it durably (store/intentions.ts), and when it falls
 * due this starts a planning call in its chat (a `received` task carrying it, tasks/received-rules.ts)
 * so the model decides then what to send — or nothing.
 *
 * One clock timer, armed for the soonest pending intention (one indexed read), is all it costs
 * while nothing is due: the scheduler's tick never sees a pending intention, so 10,000 of them
 * cost the tick nothing (bench). When one is due, in order (1–4: due-verdict.ts):
 *
 * 1. asleep (`# Sleep`): held until it wakes;
 * 2. the owner's switches and the caps (policy/gate.ts `proactive`): a takeover silence holds it
 *    until the silence ends; `/pause`, the DM policy, allowed groups, the token budget, the chat's
 *    answers per hour and the person's share skip it;
 * 3. `# Proactive Per Day` (per local day, every chat together) spent: skipped;
 * 4. a private chat whose partner did not answer the last two proactive messages: skipped (it
 *    backs off, as a person would);
 * 5. a group's intention whose asker left it or was removed: skipped. A departure's service
 *    message drops theirs as it arrives (`left`); since a group of 50 members or more posts none,
 *    Telegram is asked once (`checkMembersWith`: channels.getParticipant, or a basic group's
 *    member list) — only now, when it would fire, never per message; when Telegram cannot say,
 *    it fires (logged);
 * 6. else it fires.
 *
 * Held, skipped and missed ones keep the reason (the console and `/intentions` show it). At start,
 * one that was due while the process was down fires when it is at most `# Intention Grace` late,
 * else it is marked missed — visible, never silent. A fired intention's planning task ends its
 * story (`taskEnded`): planned (`fired`, and whether it spoke) or not (`skipped`, with why).
 */
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import { formatLocal } from "../base/zoned-time";
import type { ChatType, Clock } from "../base/types";
import type { Gate } from "../policy/gate";
import type { Intention, IntentionStore, NewIntention } from "../store/intentions";
import type { Scheduler } from "../tasks/scheduler";
import type { Task } from "../tasks/task";
import type { DepartureStore } from "../store/departures";
import { RecalledPlans, type RecalledPlan } from "./recall-plans";
import { scheduleRefusal } from "./schedule-limits";
import { dueVerdict } from "./due-verdict";

/** The longest a timer is armed for (a longer wait is re-armed; Node's timers overflow at ~24.8 days). */
const MAX_ARM_MS = 86_400_000;
/** How many due intentions are looked at per batch. */
const BATCH = 50;
/** A difference this large between the wall clock's pace and the monotonic one is the clock being set. */
const CLOCK_JUMP_MS = 2_000;

export interface IntentionsDeps {
  readonly store: IntentionStore;
  readonly persona: Pick<Persona, "rhythm" | "timeZone" | "intentions">;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly scheduler: Pick<Scheduler, "enqueueIntention">;
  readonly gate: Pick<Gate, "proactive" | "intention" | "isStrangerCall">;
  /** A chat's type as stored (undefined: unknown). */
  readonly chatType: (chatId: string) => ChatType | undefined;
  /** When the partner of a private chat last wrote there (ms), or undefined. */
  readonly partnerLastWrote: (chatId: string) => number | undefined;
  /** The console's activity feed. */
  readonly activity?: { intention(chatId: string, text: string): void };
  /** Who left a group or was blocked (store/departures.ts): a plan's schedule for them is refused. */
  readonly departures?: Pick<DepartureStore, "left" | "blocked" | "unblocked" | "goneSince">;
  /**
   * Cancel the open planning and tasks of the intentions `userId` asked for (in `chatId`; every
   * chat when undefined) that are firing now (life/recall-plans.ts); the plans touched.
   */
  readonly recall?: (userId: string, chatId: string | undefined, reason: string) => readonly RecalledPlan[];
}

/** What Telegram says of a group member (telegram/inbound/departures.ts `stillMember`). */
type MemberAnswer = { readonly member: boolean } | { readonly unsure: string };
/** Asks Telegram whether `userId` is still in the group `chatId` (`msgId`: one of their messages there). */
export type AskMember = (chatId: string, userId: string, msgId?: number) => Promise<MemberAnswer>;

/** What became of a `schedule` a plan asked for. */
export type Scheduled =
  | { readonly ok: true; readonly intention: Intention }
  | { readonly ok: false; readonly reason: string; readonly intention: Intention };

export class Intentions {
  private timer: unknown;
  private armedFor: number | undefined;
  private stopped = true;
  private firing = false;
  /** Per chat: schedules its last plans asked for that were not set, told to its next plan once. */
  private readonly notes = new Map<string, { date: number; text: string }[]>();
  /** The wall clock and the monotonic clock when last looked at (a jump of the wall clock shows as a difference of pace). */
  private lastWall: number | undefined;
  private lastMono = 0;
  private askMember: AskMember | undefined;
  /** Planning tasks of intentions recalled (their asker went): what their plans add is refused. */
  private readonly recalled = new RecalledPlans((since) => this.d.store.recalledSince(since));

  constructor(private readonly d: IntentionsDeps) {}

  private get now(): number {
    return this.d.clock.now();
  }

  /**
   * Start firing: what was due while the process was down is missed when it is more than the
   * grace late (one range update), the rest fires at once; then the timer is armed.
   */
  start(): void {
    this.stopped = false;
    // Written later than now: the clock was set back while the process was down. What is
    // pending moves back as far (as the scheduler's tasks do), not an hour late.
    const newest = this.d.store.newestWrite();
    if (newest !== undefined && newest - this.now >= CLOCK_JUMP_MS) this.shift(this.now - newest);
    this.lastWall = undefined;
    this.followClock();
    const now = this.now;
    const graceMs = this.d.persona.intentions.graceHours * 3_600_000;
    const missed = this.d.store.missBefore(
      now - graceMs,
      `missed: the process was down at its time (more than ${this.d.persona.intentions.graceHours} h late)`,
      now,
    );
    if (missed.length > 0) {
      this.d.logger.warn(
        { component: "intentions", missed: missed.length, graceHours: this.d.persona.intentions.graceHours },
        "intentions missed: their time passed while the process was down, longer ago than the grace",
      );
      for (const i of missed.slice(0, 20))
        this.d.activity?.intention(i.chatId, `intention #${i.id} missed: ${i.note}`);
    }
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
  }

  /**
   * A plan asks to do something later: stored when the chat's and the day's limits allow, else
   * kept as refused with the reason (its next request shows it, so the persona knows).
   */
  schedule(n: NewIntention): Scheduled {
    const now = this.now;
    const tz = this.d.persona.timeZone;
    // The same plan's same note once: a replay of its task cannot add a second.
    const again = n.planId !== undefined ? this.d.store.setBy(n.planId, n.chatId, n.note) : undefined;
    if (again)
      return again.state === "refused"
        ? { ok: false, reason: again.reason ?? "refused", intention: again }
        : { ok: true, intention: again };
    // The owner's switches and the caps as they are now, and the limits (schedule-limits.ts).
    const reason = scheduleRefusal(n, this.d, now);
    if (reason !== undefined) {
      const intention = this.d.store.refuse(n, reason);
      this.d.activity?.intention(n.chatId, `intention not set (${reason}): ${n.note}`);
      const list = this.notes.get(n.chatId) ?? [];
      list.push({ date: now, text: `Your schedule "${n.note.slice(0, 80)}" was not set: ${reason}` });
      if (this.notes.size > 10_000) this.notes.clear(); // bounded, whatever the account is in
      this.notes.set(n.chatId, list.slice(-3));
      return { ok: false, reason, intention };
    }
    const intention = this.d.store.add(n);
    this.d.activity?.intention(
      n.chatId,
      `intention #${intention.id} set for ${formatLocal(n.dueAt, tz)}: ${n.note}`,
    );
    this.d.logger.info(
      { component: "intentions", chatId: n.chatId, intentionId: intention.id, dueAt: n.dueAt },
      "intention set",
    );
    this.arm();
    return { ok: true, intention };
  }

  /** The schedules of a chat's last plans that were not set, with why (its next plan is told, once). */
  takeNotes(chatId: string): readonly { date: number; text: string }[] {
    const list = this.notes.get(chatId) ?? [];
    this.notes.delete(chatId);
    return list;
  }

  /** Cancel a pending intention (a plan, the owner, the console); the row, or undefined when none is pending. */
  cancel(id: number, by: string): Intention | undefined {
    const gone = this.d.store.cancel(id, `cancelled ${by}`, this.now);
    if (gone) {
      this.d.activity?.intention(gone.chatId, `intention #${id} cancelled ${by}: ${gone.note}`);
      this.arm();
    }
    return gone;
  }

  /**
   * The persona blocked someone (a plan's `block` in their DM): what it meant to do in that DM or
   * for them anywhere is dropped with the reason, never sent to them later.
   */
  blocked(userId: string): void {
    this.d.departures?.blocked(userId, this.now);
    const gone = this.d.store.dropFor(userId, "skipped: its asker was blocked", this.now);
    for (const i of gone)
      this.d.activity?.intention(i.chatId, `intention #${i.id} skipped: its asker was blocked`);
    this.recall(userId, undefined, "its asker was blocked");
    if (gone.length > 0) this.arm();
  }

  /** The persona unblocked someone (here, or in another app): intentions may be set for them again. */
  unblocked(userId: string): void {
    this.d.departures?.unblocked(userId);
  }

  /**
   * Someone left a group or was removed from it (its service message): what they asked for there
   * is dropped with the reason, never sent after they are gone.
   */
  left(chatId: string, userId: string, how: "left" | "removed", messageId?: number): void {
    const why = how === "left" ? "its asker left the group" : "its asker was removed from the group";
    this.d.departures?.left(chatId, userId, how, messageId, this.now);
    // One being planned now (or its answer on its way) is recalled: its tasks are cancelled.
    this.recall(userId, chatId, why);
    const gone = this.d.store.dropAskerIn(chatId, userId, `skipped: ${why}`, this.now);
    for (const i of gone) {
      this.d.logger.info(
        { component: "intentions", chatId, intentionId: i.id, reason: why },
        "intention skipped",
      );
      this.d.activity?.intention(chatId, `intention #${i.id} skipped: ${why}`);
    }
    if (gone.length > 0) this.arm();
  }

  /**
   * The asker of intentions being planned or answered now went: their open tasks are cancelled,
   * the intentions skipped with why, and what their plans still add is refused (`recalledFor`).
   */
  private recall(userId: string, chatId: string | undefined, why: string): void {
    for (const { plan, gone, refused } of this.d.recall?.(userId, chatId, why) ?? []) {
      if (refused) this.recalled.add(plan.id, why);
      for (const i of gone) {
        const state = this.d.store.get(i.id)?.state;
        if (state !== "firing" && state !== "fired") continue;
        // Taken out of a plan that goes on: not tied to it (a restart must not refuse that plan).
        if (!refused) this.d.store.takeOut(i.id, `skipped: ${why}`, this.now);
        else this.d.store.skip(i.id, `skipped: ${why}`, this.now, state);
        this.d.activity?.intention(plan.chatId, `intention #${i.id} skipped: ${why}`);
      }
    }
  }

  /** Why a task of a recalled intention's plan may not run (the admission gate); undefined: it may. */
  recalledFor(task: Task): string | undefined {
    return this.recalled.refusal(task, this.now);
  }

  /** How a group's due intention learns whether its asker is still there (the telegram/ room's read calls). */
  checkMembersWith(ask: AskMember): void {
    this.askMember = ask;
  }

  /** Move a pending intention to `at` (the console); the row, or undefined when none is pending. */
  reschedule(id: number, at: number): Intention | undefined {
    const moved = this.d.store.reschedule(id, at, this.now);
    if (moved) {
      this.d.activity?.intention(
        moved.chatId,
        `intention #${id} moved to ${formatLocal(at, this.d.persona.timeZone)}: ${moved.note}`,
      );
      this.arm();
    }
    return moved;
  }

  /** A planning task ended: the due intentions it carried were planned (`fired`) or not (`skipped`). */
  taskEnded(task: Task, status: "done" | "failed" | "cancelled"): void {
    if (task.kind === "block" && status === "done") return this.blocked(task.chatId);
    if (task.kind === "unblock" && status === "done") return this.unblocked(task.chatId);
    if (task.kind !== "received") return;
    const p = (task as Task<"received">).payload;
    if (!p.intentions?.length) return;
    const now = this.now;
    for (const i of p.intentions) {
      if (status === "done") this.d.store.fired(i.id, p.spoke === true, task.id, now);
      else {
        const why = `skipped: ${status === "failed" ? "planning failed" : (task.error ?? "cancelled")}`;
        this.d.store.skip(i.id, why, now, "firing");
        this.d.activity?.intention(task.chatId, `intention #${i.id} ${why}`);
      }
    }
  }

  /**
   * The wall clock was set forward or back (an operator, NTP) since it was last looked at: what is
   * pending keeps its remaining wait, as the scheduler's tasks do (one due in 60 s is not an hour
   * late when the clock is set back an hour, nor due at once when it is set forward). One update.
   */
  private followClock(): void {
    const mono = this.d.clock.monotonic?.();
    if (mono === undefined) return;
    const wall = this.now;
    const jump = this.lastWall === undefined ? 0 : wall - this.lastWall - (mono - this.lastMono);
    this.lastWall = wall;
    this.lastMono = mono;
    if (Math.abs(jump) >= CLOCK_JUMP_MS) this.shift(jump);
  }

  private shift(ms: number): void {
    const moved = this.d.store.shiftPending(Math.round(ms), this.now);
    if (moved === 0) return;
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = undefined;
    this.d.logger.warn(
      { component: "intentions", jumpMs: Math.round(ms), intentions: moved },
      `the system clock was set ${Math.round(Math.abs(ms) / 60_000)} min ${ms < 0 ? "back" : "forward"}; ${moved} pending intention${moved === 1 ? "" : "s"} keep${moved === 1 ? "s" : ""} ${moved === 1 ? "its" : "their"} remaining wait`,
    );
  }

  /** Arm the timer for the soonest pending intention (re-armed when that changes). */
  private arm(): void {
    if (this.stopped) return;
    this.followClock();
    const next = this.d.store.nextDue();
    if (next === undefined) {
      if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
      this.timer = undefined;
      this.armedFor = undefined;
      return;
    }
    if (this.timer !== undefined && this.armedFor !== undefined && this.armedFor <= next) return;
    if (this.timer !== undefined) this.d.clock.clearTimeout(this.timer);
    const delay = Math.min(Math.max(0, next - this.now), MAX_ARM_MS);
    this.armedFor = this.now + delay;
    this.timer = this.d.clock.setTimeout(() => {
      this.timer = undefined;
      this.armedFor = undefined;
      this.fireDue();
    }, delay);
  }

  /** Look at every intention due now (in batches), then arm for the next. */
  private fireDue(): void {
    if (this.stopped || this.firing) return;
    this.firing = true;
    void this.fireAll().finally(() => {
      this.firing = false;
      this.arm();
    });
  }

  private async fireAll(): Promise<void> {
    try {
      this.followClock();
      for (;;) {
        const due = this.d.store.due(this.now, BATCH);
        for (const i of due) {
          const asker = this.departed(i);
          // Only a group's intention with an asker waits for Telegram's answer; the rest decide at once.
          if (asker === undefined) this.decide(i);
          else if (await this.stillThere(i, asker)) this.decide(i, true);
          if (this.stopped) return;
        }
        if (due.length < BATCH || this.stopped) break;
      }
    } catch (e) {
      this.d.logger.error({ component: "intentions", err: String(e) }, "could not look at due intentions");
    }
  }

  /** The asker to look for in a group (undefined: nothing to ask — a DM, or no asker). */
  private departed(i: Intention): string | undefined {
    const type = this.d.chatType(i.chatId);
    if (i.forUser === undefined || this.askMember === undefined) return undefined;
    return type === "group" || type === "supergroup" || type === "forum" ? i.forUser : undefined;
  }

  /**
   * Whether a group intention's asker is still a member, asked of Telegram once, only when
   * everything else would let it fire; gone, it is skipped with the reason; Telegram unsure, it fires.
   */
  private async stillThere(i: Intention, asker: string): Promise<boolean> {
    if (!this.decide(i, false)) return false;
    const answer = await this.askMember!(i.chatId, asker, i.inReplyTo).catch((e: unknown): MemberAnswer => ({
      unsure: String(e),
    }));
    if (this.stopped || this.d.store.get(i.id)?.state !== "pending") return false;
    if ("unsure" in answer) {
      this.d.logger.info(
        { component: "intentions", chatId: i.chatId, intentionId: i.id, why: answer.unsure },
        "could not ask Telegram whether the intention's asker is still in the group; it fires",
      );
      return true;
    }
    if (answer.member) return true;
    this.skip(i, "its asker is no longer in the group");
    return false;
  }

  /**
   * Decide a due intention: held, skipped or fired. `fire: false` only looks — true when it would
   * fire, having changed nothing; a hold or a skip is applied either way.
   */
  private decide(i: Intention, fire = true): boolean {
    const now = this.now;
    // Asleep, the owner's switches and the caps, the day's calls, a partner who stopped answering.
    const verdict = dueVerdict(i, this.d, now);
    if (verdict && "hold" in verdict) {
      this.hold(i, verdict.hold, verdict.why);
      return false;
    }
    if (verdict) return this.skip(i, verdict.skip);
    if (!fire) return true;
    this.d.store.transaction(() => {
      const task = this.d.scheduler.enqueueIntention(
        i.chatId,
        i.topicId,
        {
          id: i.id,
          note: i.note,
          setAt: i.setAt,
          dueAt: i.dueAt,
          ...(i.inReplyTo !== undefined ? { inReplyTo: i.inReplyTo } : {}),
        },
        i.forUser !== undefined ? [i.forUser] : [],
      );
      if (task) this.d.store.firing(i.id, task.id, now);
    });
    this.d.logger.info(
      {
        component: "intentions",
        chatId: i.chatId,
        intentionId: i.id,
        lateSec: Math.round((now - i.dueAt) / 1000),
      },
      "intention due: planning",
    );
    this.d.activity?.intention(i.chatId, `intention #${i.id} due: planning (${i.note})`);
    return true;
  }

  private hold(i: Intention, until: number, why: string): void {
    this.d.store.hold(i.id, until, `held: ${why}`, this.now);
    this.d.activity?.intention(i.chatId, `intention #${i.id} held: ${why}`);
  }

  private skip(i: Intention, why: string): false {
    this.d.store.skip(i.id, `skipped: ${why}`, this.now);
    this.d.logger.info(
      { component: "intentions", chatId: i.chatId, intentionId: i.id, reason: why },
      "intention skipped",
    );
    this.d.activity?.intention(i.chatId, `intention #${i.id} skipped: ${why}`);
    return false;
  }
}
