/**
 * The account as a whole (issue 36): a ceiling on the messages it sends per hour, in every chat
 * together, and a lower one for first messages to strangers — a private chat it never wrote in
 * before, with someone who is not one of the persona's people.
 * Telegram limits accounts that write to many new people fast (PEER_FLOOD); twenty strangers
 * writing once a minute each must not make it answer 280 times in half an hour. A busy person
 * sends perhaps a message a minute at most, and seldom starts ten new conversations an hour.
 *
 * When it binds, the owner and the persona's people are served first: strangers (a DM with
 * someone who is not a contact nor in `# Allowed Users`, or such a person on strangers' ground)
 * may use only STRANGERS_SHARE of the hour; the owner's Saved Messages are never held. Once the
 * hour is spent, a stranger's message is capped, but an answer to the owner's people waits for
 * the hour to have room (`roomAt`; the gate holds its planning and its send) within the
 * answer-age limit (issue 45). Counted
 * in memory over a sliding hour (a restart starts the count again: the ceiling is a brake on a
 * flood, not a ledger); read by the gate (policy/gate.ts), `/status` and the metrics.
 */
import type { Clock } from "../base/types";
import type { Task } from "../tasks/task";
import type { TaskHold } from "../tasks/task-hold";

/** Messages (text parts and stickers) the account sends per hour at most. */
const SENDS_PER_HOUR = 60;
/** First messages (a private chat it never wrote in before) per hour at most. */
const FIRST_SENDS_PER_HOUR = 10;
/** Strangers may use this part of the hour's messages; the rest is kept for the owner's people. */
const STRANGERS_SHARE = 0.75;
const HOUR_MS = 3_600_000;
/** A planning round let through by a freed slot keeps it this long at most (until it sends). */
const RESERVE_MS = 5 * 60_000;
/** A held planning round is forgotten after this (it ran, was cancelled or aged out). */
const WAITING_MS = 3 * HOUR_MS;

/** What `/status` and the metrics show. */
export interface SendCeilingSnapshot {
  readonly sent: number;
  readonly perHour: number;
  readonly first: number;
  readonly firstPerHour: number;
}

export class SendCeiling {
  private sent: { at: number; first: boolean }[] = [];
  /** Chats whose admitted send is a first message (counted as one when it is done). */
  private readonly firsts = new Set<string>();
  /** Planning rounds held for room, in the order they came (task id → when first held). */
  private readonly waiting = new Map<number, number>();
  /** Planning rounds let through by a freed slot, not yet sending (task id → when). */
  private readonly reserved = new Map<number, number>();

  constructor(
    private readonly clock: Clock,
    readonly perHour = SENDS_PER_HOUR,
    readonly firstPerHour = FIRST_SENDS_PER_HOUR,
  ) {}

  private recent(): { at: number; first: boolean }[] {
    const since = this.clock.now() - HOUR_MS;
    if (this.sent.length > 0 && this.sent[0]!.at <= since) this.sent = this.sent.filter((s) => s.at > since);
    return this.sent;
  }

  private firstCount(): number {
    return this.recent().filter((s) => s.first).length;
  }

  /** Whether strangers' part of the hour is spent (their messages are not planned then). */
  strangersFull(): boolean {
    return this.recent().length >= Math.floor(this.perHour * STRANGERS_SHARE);
  }

  /** Whether the hour's messages are spent for everyone (nothing is planned then: no call is paid in vain). */
  full(): boolean {
    return this.recent().length >= this.perHour;
  }

  /** When the hour has room for one more message again (now when it has; ms). */
  roomAt(): number {
    const sent = this.recent();
    if (sent.length < this.perHour) return this.clock.now();
    return sent[sent.length - this.perHour]!.at + HOUR_MS;
  }

  /**
   * A planning round for the owner's people while the hour is spent: undefined when a free slot
   * is its own (the k-th one waiting gets the k-th slot to free, so one freed slot pays one call,
   * not one per waiting plan), else when its slot frees (ms).
   */
  planRoom(taskId: number): number | undefined {
    const now = this.clock.now();
    for (const [id, at] of this.reserved) if (at <= now - RESERVE_MS) this.reserved.delete(id);
    for (const [id, at] of this.waiting) if (at <= now - WAITING_MS) this.waiting.delete(id);
    if (this.reserved.has(taskId)) return undefined;
    const sent = this.recent();
    const free = this.perHour - sent.length - this.reserved.size;
    if (!this.waiting.has(taskId)) {
      if (free > this.waiting.size) return undefined;
      this.waiting.set(taskId, now);
    }
    const k = [...this.waiting.keys()].indexOf(taskId);
    if (k < free) {
      this.waiting.delete(taskId);
      this.reserved.set(taskId, now);
      return undefined;
    }
    // It needs k + 1 free slots beyond those reserved: the (k + 1 - free)-th of the hour's sends to expire.
    const i = sent.length - this.perHour + this.reserved.size + k;
    const at = sent[Math.min(Math.max(i, 0), sent.length - 1)];
    return at === undefined ? now : Math.max(now, at.at + HOUR_MS);
  }

  /** Whether the hour's first messages are spent. */
  firstsFull(): boolean {
    return this.firstCount() >= this.firstPerHour;
  }

  /** A send about to start: the reason it may not, or undefined (a first message is noted as such). */
  admit(chatId: string, o: { readonly trusted: boolean; readonly first: boolean }): string | undefined {
    const n = this.recent().length;
    if (n >= this.perHour)
      return `account ceiling: ${n} messages sent in the last hour (at most ${this.perHour})`;
    if (!o.trusted && this.strangersFull())
      return `account ceiling: ${n} messages sent in the last hour; the rest is kept for the owner's people`;
    // PEER_FLOOD is Telegram's brake on writing to people who are not contacts: contacts pass.
    if (o.first && !o.trusted && this.firstsFull())
      return `account ceiling: ${this.firstCount()} first messages to new people in the last hour (at most ${this.firstPerHour})`;
    // Only strangers' first messages are counted (and held): contacts are no PEER_FLOOD risk.
    if (o.first && !o.trusted) this.firsts.add(chatId);
    else this.firsts.delete(chatId);
    return undefined;
  }

  /** A message went out in `chatId`. */
  note(chatId: string): void {
    // The oldest plan let through by a freed slot has used it.
    const [oldest] = this.reserved.keys();
    if (oldest !== undefined) this.reserved.delete(oldest);
    this.sent.push({ at: this.clock.now(), first: this.firsts.delete(chatId) });
    if (this.sent.length > 10 * this.perHour) this.sent = this.sent.slice(-this.perHour * 2);
  }

  snapshot(): SendCeilingSnapshot {
    return {
      sent: this.recent().length,
      perHour: this.perHour,
      first: this.firstCount(),
      firstPerHour: this.firstPerHour,
    };
  }
}

/**
 * The ceiling's word on a task about to start (the gate's): a send or sticker the hour has no room
 * for is refused for a stranger and held for the owner's people until it has (`trusted`); a
 * planning round for the owner's people waits too while the hour is spent — the call would be paid
 * for an answer that could not go out; each waiting round until a slot of its own frees (one
 * freed slot, one call). The answer-age limit still holds when it runs.
 */
export function ceilingHold(
  c: SendCeiling,
  t: Task,
  trusted: boolean,
  first: boolean,
): string | TaskHold | undefined {
  if (t.kind === "received") {
    const until = trusted ? c.planRoom(t.id) : undefined;
    return until === undefined
      ? undefined
      : { until, reason: "account ceiling: the hour's messages are spent; the answer waits for room" };
  }
  const held = c.admit(t.chatId, { trusted, first });
  return held !== undefined && trusted ? { until: c.roomAt(), reason: held } : held;
}
