/**
 * smart/talkative groups: which messages that do not address the persona explicitly are worth
 * an addressing call. Runs on the inbound path for group messages of non-strict chats only, from
 * memory (no query, no request), so it must be cheap and decide most chatter on its own.
 *
 * The rule (in this order; the first that matches decides):
 * 1. `sibling`: written by another persona of this process — never answered (the loop guard).
 * 2. `no-text`: nothing to judge (a sticker, a photo without caption — only a media placeholder).
 * 3. `command`: starts with `/` — a bot command, for a bot (the persona is not one).
 * 4. `reply`: a reply. A reply to the persona is explicit (Telegram flags it `mentioned`), so this
 *    is a reply to someone else, and it does not name the persona (that would be explicit too).
 * 5. `other-mention`: it @mentions someone else (a mention entity or an `@name` that is not the
 *    persona's username): it is for them.
 * 6. Otherwise it is a candidate only when it is *near* the persona or, in talkative mode, chatter:
 *    - `follow-up`: its sender is the person the persona last talked with in this chat (who
 *      addressed it), the persona spoke less than {@link NEAR_MS} ago and at most
 *      {@link NEAR_MESSAGES} messages of others came since — going on with it without naming it;
 *    - `question`: a question to the room (has `?`, at least {@link QUESTION_MIN_WORDS} words) —
 *      somebody asking anyone, which the persona may well be meant by — but at most one per
 *      {@link QUESTION_COOLDOWN_MS} per chat: a room firing questions is talking among itself,
 *      and this bounds what a lively room costs (the rest are skipped as `cooldown`).
 *    - `chatter` (talkative only): anything else with text — someone saying something to the room
 *      ("just finished Dune, what a book"), which a talkative persona may want to join — but only
 *      when it can join a burst already gathering for the chat (no extra call), or at most once
 *      per {@link CHATTER_COOLDOWN_MS} per chat (the rest are skipped as `cooldown`).
 *    Anything else is `not-near`: chatter between others (in smart mode).
 * Candidates of one chat are then gathered into one addressing call per burst (see
 * addressing-implicit.ts), so ordinary chatter costs far fewer calls than it has candidates.
 */
import type { InboundMessage } from "../base/types";

/** Why a message got no addressing call. */
export type SkipReason =
  "sibling" | "no-text" | "command" | "reply" | "other-mention" | "cooldown" | "not-near";
/** Why it got one (`name`: it names the persona in passing, in any mode; addressing-implicit.ts). */
export type CandidateReason = "follow-up" | "question" | "chatter" | "name";

export const SKIP_REASONS: readonly SkipReason[] = [
  "sibling",
  "no-text",
  "command",
  "reply",
  "other-mention",
  "cooldown",
  "not-near",
];

/** How long after the persona's own message others' messages count as follow-ups. */
export const NEAR_MS = 3 * 60_000;
/** How many messages of others after the persona's own still count as follow-ups. */
export const NEAR_MESSAGES = 3;
/** Words a question to the room needs ("ok?" is not one). */
const QUESTION_MIN_WORDS = 3;
/** At most one room question per chat becomes a candidate in this time. */
export const QUESTION_COOLDOWN_MS = 60_000;

/**
 * talkative: at most one burst per chat started by chatter that is not near the persona in this
 * time — at most 6 such addressing calls per chat per hour, however lively the room.
 */
export const CHATTER_COOLDOWN_MS = 10 * 60_000;

/**
 * Per chat, in memory (a restart forgets it: the first messages after one are judged as if the
 * persona had not spoken lately): who last addressed the persona, when the persona last spoke,
 * and how many messages of others came since.
 */
export class ChatActivity {
  private readonly byChat = new Map<string, { at: number; others: number; partner?: string }>();
  private readonly questionAt = new Map<string, number>();
  private readonly chatterAt = new Map<string, number>();

  /** Whether a room question at `at` may be a candidate (and if so, the cooldown starts). */
  question(chatId: string, at: number): boolean {
    return cooldown(this.questionAt, chatId, at, QUESTION_COOLDOWN_MS);
  }

  /** talkative: whether chatter at `at` may start a burst (and if so, the cooldown starts). */
  chatter(chatId: string, at: number): boolean {
    return cooldown(this.chatterAt, chatId, at, CHATTER_COOLDOWN_MS);
  }

  /** Someone addressed the persona (explicitly, or as the addressing call judged). */
  partner(chatId: string, senderId: string): void {
    const a = this.byChat.get(chatId);
    if (a) a.partner = senderId;
    else this.byChat.set(chatId, { at: -Infinity, others: 0, partner: senderId });
  }

  /** The persona sent a message in the chat. */
  own(chatId: string, at: number): void {
    const a = this.byChat.get(chatId);
    this.byChat.set(chatId, { at, others: 0, ...(a?.partner !== undefined ? { partner: a.partner } : {}) });
  }

  /** Someone else wrote in the chat; returns how near the persona's last message this one is. */
  other(chatId: string, senderId: string, at: number): Near | undefined {
    const a = this.byChat.get(chatId);
    if (!a || a.at === -Infinity) return undefined;
    a.others++;
    return { msSinceOwn: at - a.at, othersSince: a.others, fromPartner: a.partner === senderId };
  }
}

/** True (and the cooldown restarts) when `chatId`'s last start in `starts` is at least `ms` before `at`. */
function cooldown(starts: Map<string, number>, chatId: string, at: number, ms: number): boolean {
  const last = starts.get(chatId);
  if (last !== undefined && at - last < ms) return false;
  starts.set(chatId, at);
  return true;
}

/** How near a message is to the persona's own last message in the chat. */
export interface Near {
  readonly msSinceOwn: number;
  readonly othersSince: number;
  /** Its sender is the one who last addressed the persona here. */
  readonly fromPartner: boolean;
}

export interface PrefilterContext {
  readonly selfId: string;
  /** The persona's @username (lower case, without @), if it has one. */
  readonly selfUsername?: string;
  readonly siblings: ReadonlySet<string>;
  /** How near the persona's own last message this one is (undefined: it has not spoken here lately). */
  readonly near: Near | undefined;
  /** Asked only for a room question: may it be a candidate (the per-chat cooldown)? */
  readonly questionAllowed: () => boolean;
  /**
   * talkative only (absent in smart mode): asked for other chatter — may it be a candidate (a
   * burst is gathering it can join, or the per-chat chatter cooldown allows a new one)?
   */
  readonly chatterAllowed?: () => boolean;
}

const USERNAME_RE = /(?<![\p{L}\p{N}_])@([A-Za-z0-9_]{3,32})/gu;
const QUESTION_RE = /[?？¿]/;
/** A media placeholder alone (`[sticker 😀]`, `[photo]`): no words to judge. */
const MEDIA_ONLY_RE = /^\[[a-z][^\]\n]*\]$/;

/** The prefilter's verdict on one message that does not address the persona explicitly. */
export function prefilter(
  m: InboundMessage,
  ctx: PrefilterContext,
): { readonly skip: SkipReason } | { readonly candidate: CandidateReason } {
  if (ctx.siblings.has(m.senderId)) return { skip: "sibling" };
  const text = m.text.trim();
  if (text === "" || MEDIA_ONLY_RE.test(text)) return { skip: "no-text" };
  if (text.startsWith("/")) return { skip: "command" };
  if (m.replyToId !== undefined) return { skip: "reply" };
  if (mentionsSomeoneElse(m, text, ctx.selfUsername, ctx.selfId)) return { skip: "other-mention" };
  const near = ctx.near;
  if (near?.fromPartner && near.msSinceOwn < NEAR_MS && near.othersSince <= NEAR_MESSAGES)
    return { candidate: "follow-up" };
  const question = QUESTION_RE.test(text) && text.split(/\s+/).length >= QUESTION_MIN_WORDS;
  if (question && ctx.questionAllowed()) return { candidate: "question" };
  // talkative: everything else with text is chatter (a question in its cooldown too).
  if (ctx.chatterAllowed) return ctx.chatterAllowed() ? { candidate: "chatter" } : { skip: "cooldown" };
  return { skip: question ? "cooldown" : "not-near" };
}

function mentionsSomeoneElse(
  m: InboundMessage,
  text: string,
  self: string | undefined,
  selfId: string,
): boolean {
  // A text mention of a user without a username points at someone by id: never the persona (that is `mentioned`).
  if (m.entities.some((e) => e.type === "mentionname" && e.userId !== selfId)) return true;
  if (!text.includes("@")) return false;
  for (const match of text.matchAll(USERNAME_RE)) {
    if (match[1]!.toLowerCase() !== self) return true;
  }
  return false;
}
