/**
 * How she is received (issue 37, point 8). After an unasked remark (a talkative group's
 * interjection) the next {@link RECEPTION_WINDOW_MS} say what people made of it: a reply to her,
 * a mention, laughter or a reaction on her message welcome it; nothing at all leaves it ignored;
 * a clear "stop" ("shut up bot", "nobody asked", "заткнись") rejects it, and she joins in unasked
 * nowhere in that chat for {@link STOP_MS} (a mention is still answered). A clear "stop" counts
 * after any of her messages in the chat, an ordinary answer too.
 *
 * No LLM call and no query: the inbound path pays one Map lookup per group message, and a word
 * check only in a chat where she spoke in the last window.
 */
import type { InboundMessage } from "../base/types";
import type { Clock } from "../base/types";
import type { MessageStore } from "../store/messages";
import {
  RECEPTION_WINDOW_MS,
  receptionState,
  type ReceptionRow,
  type ReceptionState,
  type ReceptionStore,
} from "../store/reception";

/** After a clear "stop", no interjection in the chat for this long (24 h). */
const STOP_MS = 24 * 3_600_000;
/** Laughter this soon after her remark is laughter at it. */
const LAUGH_MS = 3 * 60_000;
/** An interjection decided this long ago whose message has not gone out yet no longer opens a window. */
const PENDING_MS = 10 * 60_000;
/** After an ignored remark (or a "stop" that ran out) the interjection threshold rises by this much… */
const IGNORED_THRESHOLD_STEP = 0.15;
/** …and she joins in at most once an hour. */
const IGNORED_PER_HOUR = 1;

/** Rejections, in English and Russian: they count when aimed at her (a reply, her name, "bot"). */
const REJECTION =
  /\b(shut\s*up|stfu|nobody\s+asked|no\s*one\s+asked|who\s+asked|stop\s+(it|talking|that)|go\s+away|be\s+quiet)\b|(^|[^\p{L}])(заткнись|замолчи|помолчи|отстань|никто\s+не\s+спрашивал|тебя\s+не\s+спрашивали|хватит|стоп)(?![\p{L}])/iu;
/** A message that is only a rejection ("stop", "nobody asked", "заткнись"): right after her words, aimed at her. */
const ALONE =
  /^[\s"'«»„“”(]*(stop|enough|stfu|shut\s*up|nobody\s+asked|no\s*one\s+asked|who\s+asked(\s+(lol|lmao))?|хватит|стоп|заткнись|замолчи|помолчи|(тебя\s+)?никто\s+не\s+спрашивал|тебя\s+не\s+спрашивали)[\s!.…)\p{Extended_Pictographic}\ufe0f]*$/iu;
const TO_A_BOT = /(^|[^\p{L}])(bot|бот|бота|боту)(?![\p{L}])/iu;
const LAUGHTER =
  /(😂|🤣|😆|😹|\b(a?ha(ha)+|lol|lmao|rofl)\b|(^|[^\p{L}])(а?ха(ха)+|ахах\p{L}*|хах\p{L}*|лол|ржу))/iu;

/** Whether a message is a clear rejection of the persona (its name, for "Mira, stop it"). */
export function isRejection(text: string, o: { toHer: boolean; name: string }): boolean {
  if (ALONE.test(text)) return true;
  // A question is not a "stop" ("Пиццы хватит?", "Go away? where?", "who asked Mira to bring cake?").
  if (/\?[\s)\p{Extended_Pictographic}\ufe0f]*$/u.test(text)) return false;
  if (!REJECTION.test(text)) return false;
  if (o.toHer || TO_A_BOT.test(text)) return true;
  // Her name as a whole word ("Mira, stop it"), never inside another ("Ann" in "planning").
  return o.name !== "" && nameWord(o.name).test(text);
}

const nameWords = new Map<string, RegExp>();
function nameWord(name: string): RegExp {
  let re = nameWords.get(name);
  if (!re) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    re = new RegExp(`(?<![\\p{L}\\p{N}_])${escaped}(?![\\p{L}\\p{N}_])`, "iu");
    nameWords.set(name, re);
  }
  return re;
}

/** How her unasked remarks are received in one group, for the owner. */
export interface ReceptionReport {
  readonly chatId: string;
  readonly state: ReceptionState;
  /** When her last unasked remark (or, for a "stop" after an answer, her last message) went out. */
  readonly spokeAt: number;
  readonly said?: string;
  /** A "stop" in force: no joining in until then. */
  readonly stopUntil?: number;
}

/** How strict her interjections are in a chat, given how they were received. */
export interface InterjectRule {
  /** No interjection at all (a clear "stop" within STOP_MS): why. */
  readonly held?: string;
  readonly threshold: number;
  readonly perHour: number;
}

export class Reception {
  /** When she last sent anything in a group (memory only): the window a "stop" is read in. */
  private readonly lastSpoke = new Map<string, number>();
  /** An interjection was decided: its message, once sent, opens a waiting window. */
  private readonly pending = new Map<string, number>();

  constructor(
    private readonly d: {
      readonly store: ReceptionStore;
      readonly messages: Pick<MessageStore, "get">;
      readonly clock: Clock;
      readonly name: string;
    },
  ) {
    for (const r of d.store.all()) this.lastSpoke.set(r.chatId, r.spokeAt);
  }

  /** The addressing call decided to join in unasked (text): its message opens the window once sent. */
  interjecting(chatId: string): void {
    this.pending.set(chatId, this.d.clock.now());
  }

  /** She sent a message in a group. */
  spoke(chatId: string): void {
    const now = this.d.clock.now();
    this.lastSpoke.set(chatId, now);
    const decided = this.pending.get(chatId);
    if (decided === undefined) return;
    this.pending.delete(chatId);
    if (now - decided > PENDING_MS) return;
    const old = this.d.store.get(chatId);
    // A new remark starts a new window; a "stop" still running stays in force.
    if (old?.verdict === "rejected" && (old.stopUntil ?? 0) > now) return;
    this.d.store.put({ chatId, spokeAt: now, verdict: "waiting", updatedAt: now });
  }

  /**
   * A group message was stored (the hot path): one Map lookup unless she spoke in the chat in the
   * last window; then a word check, and a point read when it replies to something.
   */
  heard(m: InboundMessage): void {
    const at = this.lastSpoke.get(m.chatId);
    if (at === undefined) return;
    const now = this.d.clock.now();
    if (now - at > RECEPTION_WINDOW_MS) return;
    // Word checks and a Map read first: the point read of a replied-to message only when a stop
    // word is there or a remark of hers waits for its reception.
    const stopWords = ALONE.test(m.text) || REJECTION.test(m.text);
    const row = this.waiting(m.chatId, now);
    if (!stopWords && !row) return;
    const toHer =
      m.mentioned ||
      (m.replyToId !== undefined && this.d.messages.get(m.chatId, m.replyToId)?.isAgent === true);
    if (stopWords && isRejection(m.text, { toHer, name: this.d.name })) {
      this.d.store.put({
        chatId: m.chatId,
        spokeAt: this.d.store.get(m.chatId)?.spokeAt ?? at,
        verdict: "rejected",
        said: m.text.trim().slice(0, 80),
        stopUntil: now + STOP_MS,
        updatedAt: now,
      });
      return;
    }
    if (!row) return;
    if (toHer) this.welcome(row, m.replyToId !== undefined ? "a reply" : "a mention", now);
    else if (now - row.spokeAt <= LAUGH_MS && LAUGHTER.test(m.text)) this.welcome(row, "laughter", now);
  }

  /** Someone reacted to one of her messages (sent at `date`). */
  reacted(chatId: string, date: number, emoji: string): void {
    const now = this.d.clock.now();
    const row = this.waiting(chatId, now);
    if (!row || date < row.spokeAt - 1_000) return;
    this.welcome(row, `a ${emoji} reaction`, now);
  }

  /** How strict her interjections in a chat are now. */
  rule(chatId: string, base: { threshold: number; perHour: number }): InterjectRule {
    const r = this.d.store.get(chatId);
    if (!r) return base;
    const now = this.d.clock.now();
    const state = receptionState(r, now);
    if (state === "rejected" && (r.stopUntil ?? 0) > now)
      return { ...base, held: `told to stop ("${r.said ?? ""}"); no joining in until ${iso(r.stopUntil!)}` };
    if (state === "ignored" || state === "rejected")
      return {
        threshold: Math.min(0.95, Math.round((base.threshold + IGNORED_THRESHOLD_STEP) * 100) / 100),
        perHour: Math.min(base.perHour, IGNORED_PER_HOUR),
      };
    return base;
  }

  /** Every group with a verdict, as it stands now (`/status`, the console). */
  report(): readonly ReceptionReport[] {
    const now = this.d.clock.now();
    return this.d.store.all().map((r) => this.reportOf(r, now));
  }

  /** One group's (undefined: nothing known). */
  of(chatId: string): ReceptionReport | undefined {
    const r = this.d.store.get(chatId);
    return r && this.reportOf(r, this.d.clock.now());
  }

  /**
   * A basic group was upgraded to supergroup `to` (docs/chat-upgrades.md): how she was received in
   * the old group (a "stop" still running, an ignored remark) holds in the new one, unless the new
   * one has a verdict of its own already.
   */
  followed(from: string, to: string): void {
    const old = this.d.store.get(from);
    if (!old || this.d.store.get(to)) return;
    this.d.store.put({ ...old, chatId: to });
    this.lastSpoke.set(to, old.spokeAt);
  }

  /** The owner's reset: she starts afresh in the chat (welcome as anyone new). Whether there was anything. */
  reset(chatId: string): boolean {
    this.pending.delete(chatId);
    return this.d.store.reset(chatId);
  }

  private reportOf(r: ReceptionRow, now: number): ReceptionReport {
    return {
      chatId: r.chatId,
      state: receptionState(r, now),
      spokeAt: r.spokeAt,
      ...(r.said !== undefined ? { said: r.said } : {}),
      ...(r.stopUntil !== undefined && r.stopUntil > now ? { stopUntil: r.stopUntil } : {}),
    };
  }

  /** The one line the next planning request in the chat carries (empty: nothing to say). */
  line(chatId: string): string {
    const r = this.d.store.get(chatId);
    if (!r) return "";
    const now = this.d.clock.now();
    switch (receptionState(r, now)) {
      case "waiting":
        return "";
      case "welcomed":
        return `Last time you joined in here unasked, they took it well (${r.said ?? "a reply"}).`;
      case "ignored":
        return "Last time you joined in here unasked, nobody took it up: join in only when you really have something to add.";
      case "rejected":
        return (r.stopUntil ?? 0) > now
          ? `Someone here told you to stop ("${r.said ?? ""}", ${ago(now - r.updatedAt)}): answer only when asked, and briefly.`
          : "A while ago someone here told you to stop: join in unasked only rarely.";
    }
  }

  private waiting(chatId: string, now: number): ReceptionRow | undefined {
    const row = this.d.store.get(chatId);
    return row && receptionState(row, now) === "waiting" ? row : undefined;
  }

  private welcome(row: ReceptionRow, said: string, now: number): void {
    this.d.store.put({ chatId: row.chatId, spokeAt: row.spokeAt, verdict: "welcomed", said, updatedAt: now });
  }
}

const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

function ago(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return "just now";
  if (min < 90) return `${min} min ago`;
  return `${Math.round(min / 60)} h ago`;
}
