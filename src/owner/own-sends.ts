import type { ChatActions } from "../tasks/actions-port";
import type { Clock } from "../base/types";
import { isNothingSent, PermanentError } from "../tasks/errors";
import type { Task } from "../tasks/task";

/** How long a send whose outcome is unknown (failed, timed out, duplicate random_id) may still show up. */
const IN_DOUBT_MS = 10 * 60_000;
/** How long a completed send is remembered by id, for an echo that races its own answer. */
const SENT_GRACE_MS = 60_000;

/** One send of the persona, as remembered. */
export interface OwnSend {
  readonly chatId: string;
  readonly kind: "text" | "sticker" | "voice";
  readonly text: string;
  id?: number;
  /** Undefined while the request is in flight. */
  expires?: number;
}

/**
 * The persona's own sends, so an outgoing message that arrives as an update can be told apart
 * from one the owner typed on another device. Telegram does not push a session's own sends back
 * to it, but they do arrive through catch-up (getDifference) and through a second session — and
 * such an update can overtake the answer to the send itself. A message is the persona's own
 * when its id is one the persona stored as sent, or when a send of the persona in that chat is
 * in flight or in doubt with the same text (a sticker: any sticker; a voice note: any voice note). Everything else outgoing is
 * the owner's. (The owner typing the very text the persona is sending, in that chat, at that
 * moment, is taken for the persona's — a harmless confusion.)
 */
export class OwnSends {
  private readonly entries = new Set<OwnSend>();

  constructor(private readonly clock: Clock) {}

  /** A send starts; returns the handle to `end` it with. */
  begin(chatId: string, kind: OwnSend["kind"], text: string): OwnSend {
    this.prune();
    const e: OwnSend = { chatId, kind, text: text.trim() };
    this.entries.add(e);
    return e;
  }

  /** The send answered with `id`, or (undefined) failed in a way that may still have sent it. */
  end(e: OwnSend, id: number | undefined): void {
    e.id = id;
    e.expires = this.clock.now() + (id === undefined ? IN_DOUBT_MS : SENT_GRACE_MS);
  }

  /** Forget a send that certainly sent nothing. */
  drop(e: OwnSend): void {
    this.entries.delete(e);
  }

  /**
   * True when an outgoing message (chat, id, text as parsed; a sticker reads "[sticker …]") is
   * one of the persona's sends; that send is then forgotten.
   */
  claim(chatId: string, id: number, text: string): boolean {
    this.prune();
    const t = text.trim();
    const isSticker = t.startsWith("[sticker");
    const isVoice = t.startsWith("[voice");
    let match: OwnSend | undefined;
    for (const e of this.entries) {
      if (e.chatId !== chatId) continue;
      if (e.id === id) {
        match = e;
        break;
      }
      if (
        e.id === undefined &&
        match === undefined &&
        (e.kind === "sticker" ? isSticker : e.kind === "voice" ? isVoice : e.text === t)
      )
        match = e;
    }
    if (match) this.entries.delete(match);
    return match !== undefined;
  }

  private prune(): void {
    const now = this.clock.now();
    for (const e of this.entries) if (e.expires !== undefined && e.expires <= now) this.entries.delete(e);
  }
}

/**
 * Whether an outgoing message is one of her sends that a restart left in doubt (it was running
 * when the process died: it may have reached Telegram, and its retry is still open): in that chat,
 * a text send with the same words, a voice send for a voice note as long as one of its notes (or
 * its words, the text it fell back to), a sticker send for a sticker.
 * A fresh process remembers no send in flight (OwnSends is memory), so without this the catch-up
 * would bring her own message back as the owner's and silence her there.
 */
export function openSendMatches(tasks: readonly Task[], text: string, seconds?: number): boolean {
  const t = text.trim();
  return tasks.some((task) => {
    if (!task.inDoubt) return false;
    if (task.kind === "sticker") return t.startsWith("[sticker");
    if (task.kind !== "send") return false;
    const p = (task as Task<"send">).payload;
    // A voice send may have gone out as its words (the note refused, then the text send in doubt).
    if (p.text.trim() === t) return true;
    if (p.voice !== true || !t.startsWith("[voice")) return false;
    // Its notes' lengths are known (kept before each send): a note of another length is not hers,
    // and with none kept no note of hers went out (the process died while it was being made).
    const notes = p.notes ?? [];
    return notes.length > 0 && (seconds === undefined || notes.some((n) => n.seconds === seconds));
  });
}

/** `inner` with every text and sticker send registered in `own` while in flight and after. */
export class TrackedActions implements ChatActions {
  constructor(
    private readonly inner: ChatActions,
    private readonly own: OwnSends,
  ) {}

  async sendText(o: Parameters<ChatActions["sendText"]>[0]): Promise<number> {
    const e = this.own.begin(o.chatId, "text", o.text);
    let id: number | undefined;
    try {
      id = await this.inner.sendText(o);
      return id;
    } finally {
      this.own.end(e, id);
    }
  }

  async sendSticker(o: Parameters<ChatActions["sendSticker"]>[0]): Promise<number | "not-found"> {
    const e = this.own.begin(o.chatId, "sticker", "");
    let id: number | undefined;
    let notFound = false;
    try {
      const r = await this.inner.sendSticker(o);
      if (r === "not-found") notFound = true;
      else id = r;
      return r;
    } finally {
      // Nothing was sent when the sticker was not found (the handler falls back to text).
      if (notFound) this.own.drop(e);
      else this.own.end(e, id);
    }
  }

  async sendVoice(o: Parameters<NonNullable<ChatActions["sendVoice"]>>[0]): Promise<number> {
    if (!this.inner.sendVoice) throw new Error("this platform sends no voice notes");
    const e = this.own.begin(o.chatId, "voice", "");
    let id: number | undefined;
    let refused = false;
    try {
      id = await this.inner.sendVoice(o);
      return id;
    } catch (err) {
      // Refused (its rights, privacy, a file Telegram will not take), or the upload failed before
      // the send was asked: nothing went out.
      refused = err instanceof PermanentError || isNothingSent(err);
      throw err;
    } finally {
      if (refused) this.own.drop(e);
      else this.own.end(e, id);
    }
  }

  /** A note found already sent (a restarted voice send): its id is hers, as if its send had just answered. */
  async findVoice(
    o: Parameters<NonNullable<ChatActions["findVoice"]>>[0],
  ): ReturnType<NonNullable<ChatActions["findVoice"]>> {
    if (!this.inner.findVoice) return undefined;
    const found = await this.inner.findVoice(o);
    if (found) this.own.end(this.own.begin(o.chatId, "voice", ""), found.id);
    return found;
  }

  setTyping(o: Parameters<ChatActions["setTyping"]>[0]): Promise<void> {
    return this.inner.setTyping(o);
  }

  markRead(o: Parameters<ChatActions["markRead"]>[0]): Promise<void> {
    return this.inner.markRead(o);
  }

  react(o: Parameters<ChatActions["react"]>[0]): Promise<string | undefined> {
    return this.inner.react(o);
  }

  knownStickerEmoji(set: string): Promise<readonly string[] | undefined> {
    return this.inner.knownStickerEmoji?.(set) ?? Promise.resolve(undefined);
  }

  block(o: Parameters<ChatActions["block"]>[0]): Promise<void> {
    return this.inner.block(o);
  }

  unblock(o: Parameters<ChatActions["unblock"]>[0]): Promise<void> {
    return this.inner.unblock(o);
  }

  rateKeys(action: Parameters<ChatActions["rateKeys"]>[0], chatId: string): readonly string[] {
    return this.inner.rateKeys(action, chatId);
  }
}
