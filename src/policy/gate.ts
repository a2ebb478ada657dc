/**
 * The admission gate: the one place that says whether the persona may do anything in a chat.
 * Everything goes through it — an addressed message before it is planned, chatter before it
 * becomes an addressing candidate, and every task (planning, the addressing call, typing, a
 * send, a sticker, a reaction, a read mark, a block) right before it starts — so no path, old or
 * new, acts where the owner's switches say no:
 *
 * - the owner's switches: `# Allowed Groups`, the DM policy (for the chat's partner), `/pause`
 *   (everywhere or in the chat), the takeover silence;
 * - what costs: the daily token budget, strangers' share of it, the contacts' reserve, one chat's
 *   and one person's daily share of it (before any LLM call), the chat's answers per hour and
 *   one person's share of them (before an answer is planned, and before an addressing call whose
 *   answer could only be refused).
 *
 * **Strangers' ground.** A small group (at most SMALL_GROUP members as Telegram last said; with
 * no count, at most SMALL_GROUP − 1 people seen writing) where none of the persona's people — a
 * contact, a user in `# Allowed Users` — has written is treated as a private chat with each of
 * its members: the DM policy is asked about the sender, and a stranger's calls count in the
 * strangers' share. Making a two-person group is no way around `# DM Policy contacts`.
 *
 * The switches and the token caps are memory only (Maps and a cached daily sum), so chatter in a
 * smart or talkative group pays no query to be held back; the hourly caps are one indexed count,
 * paid only by what would otherwise be planned or judged.
 */
import type { Logger } from "pino";
import type { PersonaPolicy } from "../config/persona";
import { matchesPeer, type PeerRef } from "../config/persona-policy";
import { ALL_CHATS, type ChatSettingsStore } from "../store/chat-settings";
import type { ChatInfo } from "../store/chats";
import { isSummaryGraph } from "../tasks/task";
import type { Task } from "../tasks/task";
import type { ChatType, Clock, InboundMessage } from "../base/types";
import type { Caps, TokenAsk } from "./caps";
import { ceilingHold, type SendCeiling } from "./send-ceiling";
import type { TaskHold } from "../tasks/task-hold";

/** Groups up to this many members (the persona included) may be strangers' ground. */
const SMALL_GROUP = 5;
/** How long what the store says about a small group's authors is trusted before it is read again. */
const GROUND_TTL_MS = 5 * 60_000;

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
  /**
   * The chat a chat moved to (a basic group upgraded to a supergroup): a task queued in the old
   * chat is sent there, so the owner's switches of that chat hold it too.
   */
  readonly successorOf?: (chatId: string) => string | undefined;
  /** The basic group a supergroup was upgraded from (its `# Allowed Groups` entry still names it). */
  readonly predecessorOf?: (chatId: string) => string | undefined;
  readonly caps: Caps;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The contact flag the entity store last saw in a full user object (undefined: never seen). */
  readonly isContact?: (userId: string) => boolean | undefined;
  /** A user's @username as last seen (the entity store), for an allowlist naming @usernames. */
  readonly usernameOf?: (userId: string) => string | undefined;
  /** What the store knows of a chat (its type and @username), for tasks. */
  readonly chatOf?: (chatId: string) => ChatInfo | undefined;
  /** A group's member count as Telegram last said (the entity store; undefined: never said). */
  readonly membersOf?: (chatId: string) => number | undefined;
  /** People who wrote in a chat (stored messages, the persona's own left out; a bounded list). */
  readonly authorsOf?: (chatId: string) => readonly string[];
  /**
   * The person an LLM task is for: the sender of the newest message it plans for or judges; for a
   * send or sticker, of the newest message it answers (the account ceiling's trust).
   */
  readonly personOf?: (t: Task) => string | undefined;
  /** The account-wide ceiling on messages sent per hour (policy/send-ceiling.ts); absent: none. */
  readonly ceiling?: SendCeiling;
  /** Whether the persona ever wrote in a chat (a first message is one to a DM where it never did). */
  readonly wroteIn?: (chatId: string) => boolean;
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
const LLM_KINDS: ReadonlySet<Task["kind"]> = new Set(["received", "address", "summarize", "look_up"]);

export class Gate {
  /** Per small group: whether one of the persona's people wrote there, how many wrote, and when that was read. */
  private readonly ground = new Map<string, { trusted: boolean; authors: number; at: number }>();

  constructor(private readonly d: GateDeps) {}

  /**
   * An addressed message (a mention, a DM, or what the addressing call judged addressed): may it
   * be planned? In order: another persona of this process (loop guard), the owner's switches,
   * then the caps. Bots and the service account never get this far (the pipeline skips them).
   */
  message(m: InboundMessage): Admission {
    if (m.senderId !== this.d.selfId && this.d.siblings.has(m.senderId))
      return this.ignore(m.chatId, "another persona of this process", m);
    const sender = this.partnerOf(m);
    if (m.chatType !== "dm" && this.isTrusted(sender)) this.sawTrusted(m.chatId);
    const strangers = m.chatType !== "dm" && this.strangersGround(m.chatId, true);
    // In a DM, and in a group that is strangers' ground, the sender is asked as a DM partner.
    const partner = m.chatType === "dm" || strangers ? sender : undefined;
    const denied = this.switches(
      { chatId: m.chatId, chatType: m.chatType, username: m.chatUsername },
      partner,
    );
    if (denied === "needs-sender") return NEEDS_SENDER;
    if (denied !== undefined)
      return this.ignore(
        m.chatId,
        strangers && denied.startsWith("DM policy") ? `strangers' ground: ${denied}` : denied,
        m,
      );
    const cap = this.d.caps.check(m.chatId, {
      ...this.ask(m.chatId, sender, partner !== undefined),
      group: m.chatType !== "dm",
      senderId: m.senderId,
    });
    if (cap) return { ok: false, outcome: "capped", reason: cap };
    // The account as a whole: strangers use only their part of the hour's messages, and a first
    // message to someone new waits for the hour's first messages to allow it.
    const ceiling = this.d.ceiling;
    // Spent for everyone: a stranger's message is capped; the owner's people's answer waits for
    // room (its planning is held at the task: no call paid for an answer that could not go out).
    if (ceiling?.full() && !this.isTrusted(sender))
      return { ok: false, outcome: "capped", reason: "account-send-ceiling" };
    if (ceiling && partner !== undefined && !this.isTrusted(sender)) {
      if (ceiling.strangersFull()) return { ok: false, outcome: "capped", reason: "account-send-ceiling" };
      if (m.chatType === "dm" && ceiling.firstsFull() && this.d.wroteIn?.(m.chatId) === false)
        return { ok: false, outcome: "capped", reason: "account-first-messages" };
    }
    return OK;
  }

  /**
   * Group chatter in a smart or talkative chat, before the prefilter: false when the owner's
   * switches hold the chat or the day's tokens are spent — then no addressing task is made.
   * Memory only (this runs for every message of such a chat).
   */
  chatter(m: InboundMessage): boolean {
    const sender = this.partnerOf(m);
    if (this.isTrusted(sender)) this.sawTrusted(m.chatId);
    const strangers = this.strangersGround(m.chatId);
    const chat = { chatId: m.chatId, chatType: m.chatType, username: m.chatUsername };
    if (this.switches(chat, strangers ? sender : undefined) !== undefined) return false;
    return this.d.caps.tokensHeld(m.chatId, this.ask(m.chatId, sender, strangers)) === undefined;
  }

  /**
   * A task about to start: the reason it may not, or undefined. Every kind passes the owner's
   * switches; an LLM call also the token caps; an addressing call also the chat's answers per
   * hour (its answer could only be refused). Planning is not held by the hourly caps here: its
   * message was counted when it was admitted. Saved Messages (the owner's answers) are always
   * allowed, a send in doubt too (it may already be out; only the server's answer settles it),
   * and a lane summary only answers to the budget.
   */
  task(t: Task): string | TaskHold | undefined {
    if (t.chatId === this.d.selfId || t.inDoubt) return undefined;
    if (isSummaryGraph(t.chatId)) return this.d.caps.tokensSpent() ? "daily-token-budget" : undefined;
    const chat = this.chatRef(t.chatId);
    const llm = LLM_KINDS.has(t.kind);
    // The person an LLM call is for: its share, its trust and, on strangers' ground, its DM policy.
    const personId = chat.chatType === "dm" ? t.chatId : llm ? this.d.personOf?.(t) : undefined;
    const person = personId === undefined ? undefined : this.partnerOfChat(personId);
    const strangers = chat.chatType !== "dm" && person !== undefined && this.strangersGround(t.chatId);
    const partner = chat.chatType === "dm" || strangers ? person : undefined;
    const denied = this.switches(chat, partner);
    if (denied !== undefined) return denied === "needs-sender" ? "DM policy allowlist: not listed" : denied;
    if ((t.kind === "send" || t.kind === "sticker" || t.kind === "received") && this.d.ceiling) {
      const dm = chat.chatType === "dm";
      // In a group, whom the send answers decides (a stranger in a public group spends strangers'
      // part, not the reserve kept for the owner's people).
      // A send is for the author of the newest message it answers (`personOf`); one that answers
      // none (an intention's own) goes by the chat.
      const answered =
        !dm && person === undefined && (t.kind === "send" || t.kind === "sticker")
          ? this.d.personOf?.(t)
          : undefined;
      const trusted = dm
        ? this.isTrusted(this.partnerOfChat(t.chatId))
        : person !== undefined
          ? this.isTrusted(person)
          : answered !== undefined
            ? this.isTrusted(this.partnerOfChat(answered))
            : !this.strangersGround(t.chatId);
      const hold = ceilingHold(this.d.ceiling, t, trusted, dm && this.d.wroteIn?.(t.chatId) === false);
      if (hold !== undefined) return hold;
    }
    if (!llm) return undefined;
    const tokens = this.d.caps.tokens(
      t.chatId,
      person ? this.ask(t.chatId, person, partner !== undefined) : { stranger: false, trusted: false },
    );
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
    const { chat, denied, tokens } = this.forPerson(chatId, forUser);
    const silentUntil = this.d.settings.get(chatId).silentUntil;
    if (denied === "the owner took over this chat" && silentUntil !== undefined)
      return { hold: silentUntil, reason: denied };
    if (denied !== undefined) return { skip: denied };
    const spent = tokens();
    if (spent) return { skip: `cap: ${spent}` };
    if (this.d.caps.chatFull(chatId)) return { skip: "cap: answers-per-hour" };
    if (chat.chatType !== "dm" && forUser !== undefined && this.overShare(chatId, forUser))
      return { skip: "cap: person-share" };
    return undefined;
  }

  /**
   * A plan's `schedule` about to be stored (life/intentions.ts): the reason it may not, or
   * undefined. The owner's switches as for the call it will start — allowed groups, the DM policy
   * (a DM's partner, or the person it is for on strangers' ground), `/pause`, a takeover — and the
   * token caps for that person: what could not be planned now is not promised for later either.
   */
  intention(chatId: string, forUser?: string): string | undefined {
    if (chatId === this.d.selfId) return undefined;
    const { denied, tokens } = this.forPerson(chatId, forUser);
    if (denied !== undefined) return denied;
    const spent = tokens();
    return spent ? `cap: ${spent}` : undefined;
  }

  /**
   * A call in `chatId` for `forUser` (as for a planning task: in a DM its partner): the owner's
   * switches for it — the DM policy asked about the person in a DM or on strangers' ground — and
   * the token caps for that person, asked only when wanted.
   */
  private forPerson(
    chatId: string,
    forUser: string | undefined,
  ): { chat: ChatRef; denied: string | undefined; tokens: () => string | undefined } {
    const chat = this.chatRef(chatId);
    const personId = chat.chatType === "dm" ? chatId : forUser;
    const person = personId === undefined ? undefined : this.partnerOfChat(personId);
    const strangers = chat.chatType !== "dm" && person !== undefined && this.strangersGround(chatId);
    const partner = chat.chatType === "dm" || strangers ? person : undefined;
    const denied = this.switches(chat, partner);
    const ask = person
      ? this.ask(chatId, person, partner !== undefined)
      : { stranger: false, trusted: false };
    return {
      chat,
      denied: denied === "needs-sender" ? "DM policy allowlist: not listed" : denied,
      tokens: () => this.d.caps.tokens(chatId, ask),
    };
  }

  /**
   * Whether a person has used their share of a group's answers, or of the day's tokens
   * (addressing skips their messages: judging them would spend for nothing).
   */
  overShare(chatId: string, senderId: string): boolean {
    if (this.d.caps.overShare(chatId, senderId)) return true;
    const p = this.partnerOfChat(senderId);
    return this.d.caps.tokensHeld(chatId, this.ask(chatId, p, false)) === "person-token-share";
  }

  /**
   * May a media file `userId` sent in `chatId` be described now (one multimodal call)? The owner's
   * switches and the token caps for them, as for any LLM call; memory only, no hold recorded.
   */
  mediaCall(chatId: string, userId: string | undefined): boolean {
    if (chatId === this.d.selfId) return true;
    const chat = this.chatRef(chatId);
    const person = userId === undefined ? undefined : this.partnerOfChat(userId);
    const strangers = chat.chatType !== "dm" && person !== undefined && this.strangersGround(chatId);
    const partner = chat.chatType === "dm" ? this.partnerOfChat(chatId) : strangers ? person : undefined;
    if (this.switches(chat, partner) !== undefined) return false;
    const ask = person
      ? this.ask(chatId, person, partner !== undefined)
      : { stranger: false, trusted: false };
    return this.d.caps.tokensHeld(chatId, ask) === undefined;
  }

  /**
   * What the token caps are asked for a call made for a chat's send after its plan (her voice
   * note's speech), as `task` asks for the plan: a DM's partner (their share, their trust,
   * strangers' share); elsewhere no person.
   */
  sendTokenAsk(chatId: string): TokenAsk {
    const chat = this.chatRef(chatId);
    if (chat.chatType !== "dm") return { stranger: false, trusted: false };
    return this.ask(chatId, this.partnerOfChat(chatId), true);
  }

  /**
   * How well the persona knows `userId`: listed in `# Allowed Users` (the owner's people), a
   * contact, or a stranger (memory only). Look-ups are allowed by it (policy/lookup-rules.ts).
   */
  trust(userId: string): "allowed" | "contact" | "stranger" {
    const p = this.partnerOfChat(userId);
    if (this.d.policy.allowedUsers.some((r) => matchesPeer(r, p.id, p.username))) return "allowed";
    return p.contact === true ? "contact" : "stranger";
  }

  /**
   * Whether an LLM call for `userId` in `chatId` counts in strangers' share: a DM with a
   * stranger, or a stranger on strangers' ground.
   */
  isStrangerCall(chatId: string, userId: string | undefined): boolean {
    if (chatId === this.d.selfId) return false;
    const chat = this.chatRef(chatId);
    if (chat.chatType === "dm") return this.strangerPartner(this.partnerOfChat(chatId));
    if (userId === undefined || !this.strangersGround(chatId)) return false;
    return this.strangerPartner(this.partnerOfChat(userId));
  }

  /**
   * Strangers' ground (see the module comment): a group of at most SMALL_GROUP members where
   * none of the persona's people has written. The authors are read from the store for every
   * addressed message there (`fresh`), else at most once per GROUND_TTL_MS per group; a trusted
   * sender seen meanwhile settles it at once.
   */
  strangersGround(chatId: string, fresh = false): boolean {
    const members = this.d.membersOf?.(chatId);
    if (members !== undefined && members > SMALL_GROUP) return false;
    const now = this.d.clock.now();
    let g = this.ground.get(chatId);
    if (!g || (!g.trusted && (fresh || now - g.at > GROUND_TTL_MS))) {
      const authors = this.d.authorsOf?.(chatId) ?? [];
      g = {
        trusted: authors.some((id) => this.isTrusted(this.partnerOfChat(id))),
        authors: authors.length,
        at: now,
      };
      if (this.ground.size > 10_000) this.ground.clear(); // bounded, whatever the account is in
      this.ground.set(chatId, g);
    }
    if (g.trusted) return false;
    // No count from Telegram: as many people as wrote there (the persona too) stand in for it.
    return members !== undefined || g.authors + 1 <= SMALL_GROUP;
  }

  private sawTrusted(chatId: string): void {
    this.ground.set(chatId, { trusted: true, authors: 0, at: this.d.clock.now() });
  }

  /** The token caps' question for a call for `person`; `asPartner`: a DM or strangers' ground. */
  private ask(chatId: string, person: Partner, asPartner: boolean): TokenAsk {
    const trusted = this.isTrusted(person);
    return { stranger: asPartner && !trusted && chatId !== this.d.selfId, userId: person.id, trusted };
  }

  /** One of the persona's people: a contact (as last seen in full) or listed in `# Allowed Users`. */
  private isTrusted(p: Partner): boolean {
    return !this.strangerPartner(p);
  }

  /**
   * The owner's switches in a chat, memory only: allowed groups, the DM policy (for a DM's
   * partner, or the person asked about on strangers' ground), `/pause` everywhere and in the chat, the takeover silence. The reason it is
   * closed, "needs-sender" when an allowlist cannot tell yet, or undefined when it is open.
   */
  private switches(chat: ChatRef, partner?: Partner): string | "needs-sender" | undefined {
    const { policy } = this.d;
    if (
      chat.chatType !== "dm" &&
      policy.allowedGroups.length > 0 &&
      !policy.allowedGroups.some((r) => matchesPeer(r, chat.chatId, chat.username)) &&
      !allowedAsEarlier(policy.allowedGroups, this.d.predecessorOf?.(chat.chatId))
    )
      return "group not in Allowed Groups";
    // A DM's partner, or the person on strangers' ground: asked as the DM policy asks.
    if (partner) {
      const refused = this.dmPolicy(partner);
      if (refused !== undefined) return refused;
    }
    if (this.d.settings.get(ALL_CHATS).paused) return "paused by the owner (everywhere)";
    const next = this.d.successorOf?.(chat.chatId);
    for (const s of [this.d.settings.get(chat.chatId), ...(next ? [this.d.settings.get(next)] : [])]) {
      if (s.paused) return "paused by the owner";
      if (s.silentUntil !== undefined && s.silentUntil > this.d.clock.now())
        return "the owner took over this chat";
    }
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

/** A supergroup upgraded from a basic group the owner allowed by its id is allowed too (docs/chat-upgrades.md). */
function allowedAsEarlier(allowed: readonly PeerRef[], earlier: string | undefined): boolean {
  return earlier !== undefined && allowed.some((r) => matchesPeer(r, earlier, undefined));
}
