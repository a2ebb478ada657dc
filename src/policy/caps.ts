import type { Logger } from "pino";
import { budgetShare, personCap, strangerTokenCap, type PersonaPolicy } from "../config/persona-policy";
import type { AnswerCounts } from "../store/answer-counts";
import type { UsageStore } from "../store/usage";
import type { Clock } from "../base/types";

const HOUR_MS = 3_600_000;

/** The hourly answer cap of a chat: private chats (marked id > 0) have their own. */
function perHour(p: PersonaPolicy, chatId: string): number {
  return chatId.startsWith("-") ? p.answersPerHour : p.dmAnswersPerHour;
}

/** The caps, by the name a refusal gives (the admission gate's reason, `/status`, the console). */
export const CAP_KINDS = [
  "answers-per-hour",
  "person-share",
  "daily-token-budget",
  "stranger-token-share",
  "contacts-reserve",
  "chat-token-share",
  "person-token-share",
] as const;

/** Which cap stopped a message (or a call). */
export type CapKind = (typeof CAP_KINDS)[number];

/** Who an LLM call is for, as the token caps ask it. */
export interface TokenAsk {
  /** A stranger's DM, or a stranger in a group that is strangers' ground: counts in strangers' share. */
  readonly stranger: boolean;
  /** The person the call is for (the sender of the message planned for, judged or described). */
  readonly userId?: string | undefined;
  /** One of the persona's people (a contact, `# Allowed Users`): may spend the contacts' reserve. */
  readonly trusted: boolean;
}

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
 * Caps against cost and abuse, counted from what is stored so a restart keeps them:
 * - answers (planning rounds) per chat in any sliding hour (the task table): groups
 *   `# Answers Per Hour`, private chats `# DM Answers Per Hour`;
 * - in a group, one person's share of them (`# Person Share`): the rounds whose burst they wrote;
 * - the persona's daily token budget (the usage table, cached in memory);
 * - strangers' DMs' share of that budget (`# Stranger Token Share`), so they cannot spend what
 *   the persona's people need;
 * - the contacts' reserve (`# Contacts Reserve`): calls for anyone but the persona's people stop
 *   once the day's total leaves only the reserve;
 * - one chat's and one person's daily share of the budget (`# Chat Token Share`, `# Person Token
 *   Share`): planning, the addressing call and media descriptions, counted from `llm_usage`'s
 *   chat_id and user_id (memory after the day's first read).
 * A capped message is stored but not planned; the first one per chat per hour is logged as a
 * warning, the rest at debug.
 */
export class Caps {
  private readonly capped = new Map<string, { cap: CapKind; at: number; first: number; held: number }>();

  constructor(
    private readonly o: {
      readonly counts: Pick<AnswerCounts, "countAnswersSince" | "countPersonAnswersSince">;
      readonly policy: PersonaPolicy;
      readonly usage: UsageStore;
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {}

  /**
   * The token caps (memory only after the day's first read): the daily budget; a stranger's share;
   * the contacts' reserve for anyone who is not one of the persona's people; the chat's and the
   * person's daily shares. Records and logs the hold.
   */
  tokens(chatId: string, o: TokenAsk): CapKind | undefined {
    const now = this.o.clock.now();
    const cap = this.tokensHeld(chatId, o);
    if (cap) this.hold(chatId, cap, now);
    return cap;
  }

  /** The token cap that holds a call for `o` in `chatId` back now, without recording it. */
  tokensHeld(chatId: string, o: TokenAsk): CapKind | undefined {
    const now = this.o.clock.now();
    const p = this.o.policy;
    const total = this.o.usage.tokensToday(now);
    if (total >= p.dailyTokenBudget) return "daily-token-budget";
    if (o.stranger && this.o.usage.strangerTokensToday(now) >= strangerTokenCap(p))
      return "stranger-token-share";
    if (!o.trusted && total >= p.dailyTokenBudget - budgetShare(p, p.contactsReserve))
      return "contacts-reserve";
    if (this.o.usage.chatTokensToday(chatId, now) >= budgetShare(p, p.chatTokenShare))
      return "chat-token-share";
    if (
      o.userId !== undefined &&
      this.o.usage.userTokensToday(o.userId, now) >= budgetShare(p, p.personTokenShare)
    )
      return "person-token-share";
    return undefined;
  }

  /**
   * The cap that holds a new answer in `chatId` back now, if any (and record it): the token caps,
   * the chat's answers per hour and, in a group, the sender's share of them.
   */
  check(
    chatId: string,
    o: TokenAsk & { readonly group: boolean; readonly senderId?: string },
  ): CapKind | undefined {
    const tokens = this.tokens(chatId, o);
    if (tokens) return tokens;
    const now = this.o.clock.now();
    let cap: CapKind | undefined;
    if (this.o.counts.countAnswersSince(chatId, now - HOUR_MS) >= perHour(this.o.policy, chatId))
      cap = "answers-per-hour";
    else if (o.group && o.senderId !== undefined && this.overShare(chatId, o.senderId)) cap = "person-share";
    if (cap) this.hold(chatId, cap, now);
    return cap;
  }

  /** Whether the day's token budget is spent (memory; not recorded as a hold). */
  tokensSpent(): boolean {
    return this.o.usage.tokensToday(this.o.clock.now()) >= this.o.policy.dailyTokenBudget;
  }

  /** Whether the chat's answers per hour are spent (one indexed count; not recorded as a hold). */
  chatFull(chatId: string): boolean {
    return (
      this.o.counts.countAnswersSince(chatId, this.o.clock.now() - HOUR_MS) >= perHour(this.o.policy, chatId)
    );
  }

  /** Whether a person has used their share of a group's answers in the last hour (one indexed count). */
  overShare(chatId: string, senderId: string): boolean {
    return (
      this.o.counts.countPersonAnswersSince(chatId, senderId, this.o.clock.now() - HOUR_MS) >=
      personCap(this.o.policy)
    );
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
    this.capped.set(chatId, {
      cap,
      at: now,
      first: fresh ? now : prev.first,
      held: fresh ? 1 : prev.held + 1,
    });
    const p = this.o.policy;
    const detail =
      cap === "daily-token-budget"
        ? { cap, tokensToday: this.o.usage.tokensToday(now), budget: p.dailyTokenBudget }
        : cap === "stranger-token-share"
          ? { cap, strangerTokensToday: this.o.usage.strangerTokensToday(now), share: strangerTokenCap(p) }
          : cap === "person-share"
            ? { cap, answersPerPerson: personCap(p) }
            : cap === "contacts-reserve"
              ? {
                  cap,
                  tokensToday: this.o.usage.tokensToday(now),
                  reserve: budgetShare(p, p.contactsReserve),
                }
              : cap === "chat-token-share"
                ? {
                    cap,
                    chatTokensToday: this.o.usage.chatTokensToday(chatId, now),
                    share: budgetShare(p, p.chatTokenShare),
                  }
                : cap === "person-token-share"
                  ? { cap, share: budgetShare(p, p.personTokenShare) }
                  : { cap, answersPerHour: perHour(p, chatId) };
    if (fresh) {
      const what =
        cap === "person-share"
          ? "a person's share of this chat's answers is spent: their messages"
          : cap === "person-token-share"
            ? "a person's share of the day's tokens is spent: their messages"
            : cap === "contacts-reserve"
              ? "only the contacts' reserve of the day's tokens is left: messages of others"
              : "messages in this chat";
      this.o.logger.warn(
        { component: "policy", chatId, ...detail },
        `cap reached: ${what} are stored, not answered (warned once per chat per hour)`,
      );
    } else {
      this.o.logger.debug({ component: "policy", chatId, ...detail }, "capped message stored, not answered");
    }
  }
}
