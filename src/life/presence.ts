/**
 * True presence: the account's online status follows what the persona really does. It goes
 * online when it looks at or acts in a chat (a read mark, typing, a send, a sticker, a reaction, a
 * block), renewed while it keeps acting (Telegram lets an online status lapse about five minutes
 * after the last one; clients renew it while open), and offline once it has done nothing for
 * `idleMs` — and at a clean stop. Nothing else moves it: no timer keeps it online, so "last seen"
 * shows the persona's real activity, as Telegram's API terms require; asleep it does nothing, so it
 * stays offline. Crashed, nothing says offline: Telegram's own expiry does, as for a phone whose
 * battery died.
 *
 * Best effort, like typing: a failed or limited status request is logged and never delays or
 * fails the action it precedes. One request at most per `renewMs` while active, one when quiet.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import type { ChatActions } from "../tasks/actions-port";
import { RateLimitedError } from "../tasks/errors";

/** Renew an online status this often while active (Telegram keeps one ~5 min). */
const RENEW_MS = 240_000;
/** Offline after this long without doing anything. */
const IDLE_MS = 60_000;

/** What presence needs from Telegram. */
export interface PresencePort {
  setOnline(online: boolean): Promise<void>;
}

export class Presence {
  private online = false;
  private sentAt = 0;
  private idleTimer: unknown;
  private stopped = false;
  /** Telegram asked to wait (FLOOD_WAIT on account.updateStatus): no status is sent before this. */
  private heldUntil = 0;

  constructor(
    private readonly d: {
      readonly port: PresencePort;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly idleMs?: number;
      readonly renewMs?: number;
    },
  ) {}

  /** Whether the account said it is online (and has not said otherwise since). */
  get isOnline(): boolean {
    return this.online;
  }

  /** The persona is doing something: online now (renewed while it goes on), offline once quiet. */
  async active(): Promise<void> {
    if (this.stopped) return;
    const now = this.d.clock.now();
    if (this.idleTimer !== undefined) this.d.clock.clearTimeout(this.idleTimer);
    this.idleTimer = this.d.clock.setTimeout(() => {
      this.idleTimer = undefined;
      void this.set(false);
    }, this.d.idleMs ?? IDLE_MS);
    if (this.online && now - this.sentAt < (this.d.renewMs ?? RENEW_MS)) return;
    await this.set(true);
  }

  /** A clean stop: offline now (bounded by the request's own timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.idleTimer !== undefined) this.d.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.online) await this.set(false, true);
  }

  /** Drop everything as a dead process would (nothing more is sent). */
  abandon(): void {
    this.stopped = true;
    if (this.idleTimer !== undefined) this.d.clock.clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private async set(online: boolean, stopping = false): Promise<void> {
    if (this.stopped && !stopping) return;
    if (this.d.clock.now() < this.heldUntil) return;
    const was = this.online;
    this.online = online;
    this.sentAt = this.d.clock.now();
    try {
      await this.d.port.setOnline(online);
      if (was !== online)
        this.d.logger.debug({ component: "presence", online }, online ? "online" : "offline");
    } catch (e) {
      if (e instanceof RateLimitedError) this.heldUntil = this.d.clock.now() + e.seconds * 1000;
      this.d.logger.warn(
        { component: "presence", online, err: errorMessage(e) },
        "could not set the online status",
      );
    }
  }
}

/**
 * The chat actions with presence: each one the persona does (not a typing cancel) makes it
 * online first. The actions themselves are unchanged.
 */
export class PresentActions implements ChatActions {
  constructor(
    private readonly inner: ChatActions,
    private readonly presence: Presence,
  ) {}

  async sendText(o: Parameters<ChatActions["sendText"]>[0]): Promise<number> {
    await this.presence.active();
    return this.inner.sendText(o);
  }

  async setTyping(o: Parameters<ChatActions["setTyping"]>[0]): Promise<void> {
    if (o.action !== "cancel") await this.presence.active();
    return this.inner.setTyping(o);
  }

  async markRead(o: Parameters<ChatActions["markRead"]>[0]): Promise<void> {
    await this.presence.active();
    return this.inner.markRead(o);
  }

  async react(o: Parameters<ChatActions["react"]>[0]): Promise<string | undefined> {
    await this.presence.active();
    return this.inner.react(o);
  }

  async sendSticker(o: Parameters<ChatActions["sendSticker"]>[0]): Promise<number | "not-found"> {
    await this.presence.active();
    return this.inner.sendSticker(o);
  }

  async sendVoice(o: Parameters<NonNullable<ChatActions["sendVoice"]>>[0]): Promise<number> {
    if (!this.inner.sendVoice) throw new Error("this platform sends no voice notes");
    await this.presence.active();
    return this.inner.sendVoice(o);
  }

  /** A look at her own history (nothing shown to anyone): no presence. */
  findVoice(
    o: Parameters<NonNullable<ChatActions["findVoice"]>>[0],
  ): ReturnType<NonNullable<ChatActions["findVoice"]>> {
    return this.inner.findVoice?.(o) ?? Promise.resolve(undefined);
  }

  /** A cache read (no request): no presence. */
  knownStickerEmoji(set: string): Promise<readonly string[] | undefined> {
    return this.inner.knownStickerEmoji?.(set) ?? Promise.resolve(undefined);
  }

  async block(o: Parameters<ChatActions["block"]>[0]): Promise<void> {
    await this.presence.active();
    return this.inner.block(o);
  }

  async unblock(o: Parameters<ChatActions["unblock"]>[0]): Promise<void> {
    await this.presence.active();
    return this.inner.unblock(o);
  }

  rateKeys(action: Parameters<ChatActions["rateKeys"]>[0], chatId: string): readonly string[] {
    return this.inner.rateKeys(action, chatId);
  }
}
