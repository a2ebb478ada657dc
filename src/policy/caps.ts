import type { Logger } from "pino";
import type { PersonaPolicy } from "../config/persona";
import type { Db } from "../store/db";
import type { UsageStore } from "../store/usage";
import type { Clock } from "../types";

const HOUR_MS = 3_600_000;

/** The hourly answer cap of a chat: private chats (marked id > 0) have their own. */
function perHour(p: PersonaPolicy, chatId: string): number {
  return chatId.startsWith("-") ? p.answersPerHour : p.dmAnswersPerHour;
}

/** Which cap stopped a message. */
export type CapKind = "answers-per-hour" | "daily-token-budget";

/** A chat a cap held back in the last hour, for `/status`. */
export interface CappedChat {
  readonly chatId: string;
  readonly cap: CapKind;
  /** When the cap last held a message back there (ms). */
  readonly at: number;
  /** Messages held back there in the last hour. */
  readonly held: number;
}

/**
 * Caps against cost and abuse: answers (planning rounds) per chat in any sliding hour (groups
 * `# Answers Per Hour`, private chats `# DM Answers Per Hour`), counted
 * from the task table so a restart keeps them, and the persona's daily token budget. Asked only
 * for messages the persona would otherwise answer. A capped message is stored but not planned;
 * the first one per chat per hour is logged as a warning, the rest at debug.
 */
export class Caps {
  private readonly countStmt;
  private readonly capped = new Map<string, { cap: CapKind; at: number; first: number; held: number }>();

  constructor(
    private readonly o: {
      readonly db: Db;
      readonly agent: string;
      readonly policy: PersonaPolicy;
      readonly usage: UsageStore;
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {
    this.countStmt = o.db
      .prepare(
        `SELECT count(*) FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'received' AND created_at > ? AND status <> 'cancelled'`,
      )
      .pluck();
  }

  /** The cap that holds a new answer in `chatId` back now, if any (and record it). */
  check(chatId: string): CapKind | undefined {
    const now = this.o.clock.now();
    let cap: CapKind | undefined;
    if (this.o.usage.tokensToday(now) >= this.o.policy.dailyTokenBudget) cap = "daily-token-budget";
    else if ((this.countStmt.get(this.o.agent, chatId, now - HOUR_MS) as number) >= perHour(this.o.policy, chatId)) cap = "answers-per-hour";
    if (cap) this.hold(chatId, cap, now);
    return cap;
  }

  /** Chats a cap held a message back in within the last hour. */
  cappedChats(): CappedChat[] {
    const since = this.o.clock.now() - HOUR_MS;
    const out: CappedChat[] = [];
    for (const [chatId, c] of this.capped) {
      if (c.at > since) out.push({ chatId, cap: c.cap, at: c.at, held: c.held });
      else this.capped.delete(chatId);
    }
    return out;
  }

  private hold(chatId: string, cap: CapKind, now: number): void {
    const prev = this.capped.get(chatId);
    const fresh = !prev || prev.first <= now - HOUR_MS;
    this.capped.set(chatId, { cap, at: now, first: fresh ? now : prev.first, held: fresh ? 1 : prev.held + 1 });
    const p = this.o.policy;
    const detail =
      cap === "daily-token-budget"
        ? { cap, tokensToday: this.o.usage.tokensToday(now), budget: p.dailyTokenBudget }
        : { cap, answersPerHour: perHour(p, chatId) };
    if (fresh) {
      this.o.logger.warn({ component: "policy", chatId, ...detail }, "cap reached: messages in this chat are stored, not answered (warned once per chat per hour)");
    } else {
      this.o.logger.debug({ component: "policy", chatId, ...detail }, "capped message stored, not answered");
    }
  }
}
