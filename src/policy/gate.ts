/**
 * The admission gate: the one place that says whether the persona may do anything in a chat.
 * Everything goes through it — an addressed message before it is planned, chatter before it
 * becomes an addressing candidate, and every task (planning, the addressing call, typing, a
 * send, a sticker, a reaction, a read mark, a block) right before it starts — so no path, old or
 * new, acts where the owner's switches say no:
 *
 * - the owner's switches: `# Allowed Groups`, the DM policy (for the chat's partner), `/pause`
 *   (everywhere or in the chat), the takeover silence;
 * - what costs: the daily token budget and strangers' share of it (before any LLM call), the
 *   chat's answers per hour and one person's share of them (before an answer is planned, and
 *   before an addressing call whose answer could only be refused).
 *
 * The switches and the token caps are memory only (Maps and a cached daily sum), so chatter in a
 * smart or talkative group pays no query to be held back; the hourly caps are one indexed count,
 * paid only by what would otherwise be planned or judged.
 */
import type { Logger } from "pino";
import type { PersonaPolicy } from "../config/persona";
import { matchesPeer } from "../config/persona-policy";
import { ALL_CHATS, type ChatSettingsStore } from "../store/chat-settings";
import type { ChatInfo } from "../store/chats";
import { isSummaryGraph } from "../tasks/task";
import type { Task } from "../tasks/task";
import type { ChatType, Clock, InboundMessage } from "../base/types";
import type { Caps } from "./caps";

/** Whether an addressed message gets an answer; when not, why (for logs, tests and `--verbose`). */
export type Admission =
  | { readonly ok: true }
  | { readonly ok: false; readonly outcome: "ignored" | "capped"; readonly reason: string }
  /** Decidable only once the sender is known (an allowlist naming @usernames, an unnamed sender). */
  | { readonly ok: false; readonly needsSender: true };

/** A refusal as the console's "why" and the refusals table say it: "policy: …" or "cap: …". */
export function refusalText(a: { readonly outcome: "ignored" | "capped"; readonly reason: string }): string {
  return `${a.outcome === "capped" ? "cap" : "policy"}: ${a.reason}`;
}

const OK: Admission = Object.freeze({ ok: true });
const NEEDS_SENDER: Admission = Object.freeze({ ok: false, needsSender: true });

export interface GateDeps {
  readonly policy: PersonaPolicy;
  readonly selfId: string;
  /** User ids of the other personas running in this process (may include this one's; it is skipped). */
  readonly siblings: ReadonlySet<string>;
  readonly settings: ChatSettingsStore;
  readonly caps: Caps;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The contact flag the entity store last saw in a full user object (undefined: never seen). */
  readonly isContact?: (userId: string) => boolean | undefined;
  /** A user's @username as last seen (the entity store), for an allowlist naming @usernames. */
  readonly usernameOf?: (userId: string) => string | undefined;
  /** What the store knows of a chat (its type and @username), for tasks. */
  readonly chatOf?: (chatId: string) => ChatInfo | undefined;
}

/** Who the DM policy is asked about: a chat's partner. */
interface Partner {
  readonly id: string;
  readonly username?: string | undefined;
  readonly contact?: boolean | undefined;
  /** The update did not name them (a short update): an allowlist of @usernames cannot tell yet. */
  readonly unknown?: boolean | undefined;
}

/** A chat as the switches see it. */
interface ChatRef {
  readonly chatId: string;
  readonly chatType: ChatType;
  readonly username?: string | undefined;
}

/** What a task's kind costs: an LLM call (planning, addressing, a summary) or nothing. */
const LLM_KINDS: ReadonlySet<Task["kind"]> = new Set(["received", "address", "summarize"]);

export class Gate {
  constructor(private readonly d: GateDeps) {}

  /**
   * An addressed message (a mention, a DM, or what the addressing call judged addressed): may it
   * be planned? In order: another persona of this process (loop guard), the owner's switches,
   * then the caps. Bots and the service account never get this far (the pipeline skips them).
   */
  message(m: InboundMessage): Admission {
    if (m.senderId !== this.d.selfId && this.d.siblings.has(m.senderId))
      return this.ignore(m.chatId, "another persona of this process", m);
    const partner = m.chatType === "dm" ? this.partnerOf(m) : undefined;
    const denied = this.switches(
      { chatId: m.chatId, chatType: m.chatType, username: m.chatUsername },
      partner,
    );
    if (denied === "needs-sender") return NEEDS_SENDER;
    if (denied !== undefined) return this.ignore(m.chatId, denied, m);
    const cap = this.d.caps.check(m.chatId, {
      stranger: partner !== undefined && this.strangerPartner(partner),
      group: m.chatType !== "dm",
      senderId: m.senderId,
    });
    if (cap) return { ok: false, outcome: "capped", reason: cap };
    return OK;
  }

  /**
   * Group chatter in a smart or talkative chat, before the prefilter: false when the owner's
   * switches hold the chat or the day's tokens are spent — then no addressing task is made.
   * Memory only (this runs for every message of such a chat).
   */
  chatter(m: InboundMessage): boolean {
    if (this.switches({ chatId: m.chatId, chatType: m.chatType, username: m.chatUsername }) !== undefined)
      return false;
    return !this.budgetSpent();
  }

  /**
   * A task about to start: the reason it may not, or undefined. Every kind passes the owner's
   * switches; an LLM call also the token caps; an addressing call also the chat's answers per
   * hour (its answer could only be refused). Planning is not held by the hourly caps here: its
   * message was counted when it was admitted. Saved Messages (the owner's answers) are always
   * allowed, a send in doubt too (it may already be out; only the server's answer settles it),
   * and a lane summary only answers to the budget.
   */
  task(t: Task): string | undefined {
    if (t.chatId === this.d.selfId || t.inDoubt) return undefined;
    if (isSummaryGraph(t.chatId)) return this.budgetSpent() ? "daily-token-budget" : undefined;
    const chat = this.chatRef(t.chatId);
    const partner = chat.chatType === "dm" ? this.partnerOfChat(t.chatId) : undefined;
    const denied = this.switches(chat, partner);
    if (denied !== undefined) return denied === "needs-sender" ? "DM policy allowlist: not listed" : denied;
    if (!LLM_KINDS.has(t.kind)) return undefined;
    const tokens = this.d.caps.tokens(t.chatId, {
      stranger: partner !== undefined && this.strangerPartner(partner),
    });
    if (tokens) return tokens;
    if (t.kind === "address" && this.d.caps.chatFull(t.chatId)) return "answers-per-hour";
    return undefined;
  }

  /**
   * One of the persona's own intentions is due in a chat (life/intentions.ts): may it plan there
   * now? A takeover silence holds it until the silence ends (`hold`); every other switch — allowed
   * groups, the DM policy, `/pause` — and a cap (the token budget and strangers' share, the chat's
   * answers per hour, in a group the person's share) skip it (`skip`, the reason). Undefined: go.
   * Caps are checked here, not only at the task's start, because a proactive call is an answer
   * nobody asked for: it counts against the same caps and must fit in them.
   */
  proactive(
    chatId: string,
    forUser?: string,
  ): { hold: number; reason: string } | { skip: string } | undefined {
    if (chatId === this.d.selfId) return undefined;
    const chat = this.chatRef(chatId);
    const partner = chat.chatType === "dm" ? this.partnerOfChat(chatId) : undefined;
    const denied = this.switches(chat, partner);
    const silentUntil = this.d.settings.get(chatId).silentUntil;
    if (denied === "the owner took over this chat" && silentUntil !== undefined)
      return { hold: silentUntil, reason: denied };
    if (denied !== undefined)
      return { skip: denied === "needs-sender" ? "DM policy allowlist: not listed" : denied };
    const tokens = this.d.caps.tokens(chatId, {
      stranger: partner !== undefined && this.strangerPartner(partner),
    });
    if (tokens) return { skip: `cap: ${tokens}` };
    if (this.d.caps.chatFull(chatId)) return { skip: "cap: answers-per-hour" };
    if (chat.chatType !== "dm" && forUser !== undefined && this.d.caps.overShare(chatId, forUser))
      return { skip: "cap: person-share" };
    return undefined;
  }

  /** Whether a person has used their share of a group's answers (addressing skips their messages). */
  overShare(chatId: string, senderId: string): boolean {
    return this.d.caps.overShare(chatId, senderId);
  }

  /**
   * Whether a chat is a DM with a stranger: not the owner's Saved Messages, the partner neither a
   * contact (as last seen in a full user object) nor listed in `# Allowed Users`. Never seen in
   * full counts as a stranger (fail closed).
   */
  isStrangerChat(chatId: string): boolean {
    if (chatId === this.d.selfId || this.chatRef(chatId).chatType !== "dm") return false;
    return this.strangerPartner(this.partnerOfChat(chatId));
  }

  /**
   * The owner's switches in a chat, memory only: allowed groups or the DM policy (for its
   * partner), `/pause` everywhere and in the chat, the takeover silence. The reason it is
   * closed, "needs-sender" when an allowlist cannot tell yet, or undefined when it is open.
   */
  private switches(chat: ChatRef, partner?: Partner): string | "needs-sender" | undefined {
    const { policy } = this.d;
    if (chat.chatType === "dm") {
      if (partner) {
        const refused = this.dmPolicy(partner);
        if (refused !== undefined) return refused;
      }
    } else if (
      policy.allowedGroups.length > 0 &&
      !policy.allowedGroups.some((r) => matchesPeer(r, chat.chatId, chat.username))
    ) {
      return "group not in Allowed Groups";
    }
    if (this.d.settings.get(ALL_CHATS).paused) return "paused by the owner (everywhere)";
    const s = this.d.settings.get(chat.chatId);
    if (s.paused) return "paused by the owner";
    if (s.silentUntil !== undefined && s.silentUntil > this.d.clock.now())
      return "the owner took over this chat";
    return undefined;
  }

  private dmPolicy(p: Partner): string | "needs-sender" | undefined {
    const { policy } = this.d;
    switch (policy.dm) {
      case "off":
        return "DM policy off";
      case "contacts":
        // A short update carries no user object: the flag last seen in a full one stands in.
        // Never seen at all counts as "not a contact": fail closed.
        if (p.contact !== true)
          return p.contact === undefined
            ? "DM policy contacts: contact status unknown"
            : "DM policy contacts: not a contact";
        return undefined;
      case "allowlist":
        if (policy.allowedUsers.some((r) => matchesPeer(r, p.id, p.username))) return undefined;
        // Only a @username entry can still match a sender the update did not name.
        if (p.unknown && p.username === undefined && policy.allowedUsers.some((r) => !("id" in r)))
          return "needs-sender";
        return "DM policy allowlist: not listed";
      case "open":
        return undefined;
    }
  }

  private strangerPartner(p: Partner): boolean {
    if (p.contact === true) return false;
    return !this.d.policy.allowedUsers.some((r) => matchesPeer(r, p.id, p.username));
  }

  private budgetSpent(): boolean {
    return this.d.caps.tokensSpent();
  }

  private partnerOf(m: InboundMessage): Partner {
    return {
      id: m.senderId,
      username: m.senderUsername,
      contact: m.senderIsContact ?? this.d.isContact?.(m.senderId),
      unknown: m.senderUnknown,
    };
  }

  /** A DM's partner as the store knows them (the chat id is the partner's user id). */
  private partnerOfChat(chatId: string): Partner {
    return {
      id: chatId,
      username: this.d.usernameOf?.(chatId) ?? this.d.chatOf?.(chatId)?.username,
      contact: this.d.isContact?.(chatId),
    };
  }

  private chatRef(chatId: string): ChatRef {
    const c = this.d.chatOf?.(chatId);
    // Telegram's marked ids: groups and channels are negative, a DM is the partner's (positive) user id.
    const chatType = (c?.chatType ?? (chatId.startsWith("-") ? "group" : "dm")) as ChatType;
    return { chatId, chatType, username: c?.username };
  }

  private ignore(chatId: string, reason: string, m: InboundMessage): Admission {
    this.d.logger.debug(
      { component: "policy", chatId, messageId: m.messageId, senderId: m.senderId, reason },
      "addressed message not answered",
    );
    return { ok: false, outcome: "ignored", reason };
  }
}
