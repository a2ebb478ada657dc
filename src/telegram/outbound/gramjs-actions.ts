import type { Logger } from "pino";
import { Api, errors, type TelegramClient } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { systemClock } from "../../base/clock";
import { closestAllowed } from "../../base/standard-reactions";
import { withTimeout } from "../../base/timeout";
import type { ChatInfo } from "../../store/chats";
import type { ChatAction, ChatActions, VoiceMark } from "../../tasks/actions-port";
import { isOneOf, uploadVoice, voiceMarkOf, voiceRequest } from "./voice-upload";
import { AlreadyDoneError, nothingSent, OutcomeUnknownError, PermanentError } from "../../tasks/errors";
import type { ChatReactions } from "./chat-reactions";
import { isFrozen, METHOD, rateKeys, taskError } from "./rpc-errors";
import { StickerSets } from "./sticker-sets";
import type { FormatEntity } from "../../base/text-format";
import { sendEntities } from "./text-entities";

/** Supergroups and channels have marked ids starting with -100. */
const isChannelId = (chatId: string) => chatId.startsWith("-100");

export interface GramActionsOptions {
  readonly client: TelegramClient;
  readonly logger: Logger;
  /** What the store knows of a chat (type, access hash), to address it without GramJS's cache. */
  readonly lookupChat: (chatId: string) => ChatInfo | undefined;
  /** A request with no answer after this long counts as a transient failure (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Whether the store already holds this message (to tell an earlier identical send apart). */
  readonly isStored?: (chatId: string, messageId: number) => boolean;
  /** Every successful answer (a send's answer carries pts the update tracker must see). */
  readonly onResult?: (res: unknown) => void;
  /** The account's own user id: that chat is Saved Messages, addressed as InputPeerSelf. */
  readonly selfId?: string;
  /** What each chat allows to react with; absent: any standard reaction is tried as chosen. */
  readonly reactions?: Pick<ChatReactions, "allowed" | "forget">;
  /** A request met FROZEN_METHOD_INVALID: Telegram froze the account (account-health.ts). */
  readonly onFrozen?: (method: string, error: Error) => void;
  /** A send met USER_BANNED_IN_CHANNEL: spam-limited in every supergroup (account-health.ts). */
  readonly onGroupBan?: (chatId: string) => void;
  /** Any RPC error of a request about a chat (the entity store learns refused rights from it). */
  /** A refusal of a request about `chatId`; `topicId` the forum topic it named, `send` whether it was a send. */
  readonly onRefused?: (chatId: string, error: string, topicId: number | undefined, send: boolean) => void;
}

/**
 * How far back a send answered RANDOM_ID_DUPLICATE looks for the message it sent earlier (one
 * messages.GetHistory page). The id is not in that answer, and Telegram messages carry no
 * random_id, so the newest own message with the same content not yet stored is taken.
 */
const DUPLICATE_LOOKBACK = 50;
/**
 * How far back a restarted voice send looks for its note before making it again: her note went
 * out moments before the process died, so it is among the chat's last few messages.
 */
const VOICE_LOOKBACK = 10;

/** Default bound on one Telegram request. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Typing and read marks are decoration: they get a much shorter leash than a send. */
const COSMETIC_TIMEOUT_MS = 5_000;

/**
 * The task engine's ChatActions over a GramJS client. Requests are built by hand (not
 * `client.sendMessage`) so the caller's random_id is the one on the wire, and the sent message
 * id is read from the answer; an answer without it is an error, never `undefined`. What an error
 * means to the engine is rpc-errors.ts's call; the sticker sets are cached in sticker-sets.ts.
 */
export class GramActions implements ChatActions {
  private readonly stickerSets: StickerSets;

  constructor(private readonly o: GramActionsOptions) {
    this.stickerSets = new StickerSets({ fetch: (req, chatId) => this.call(req, chatId), logger: o.logger });
  }

  async sendText(p: {
    chatId: string;
    text: string;
    entities?: readonly FormatEntity[];
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number> {
    const req = new Api.messages.SendMessage({
      peer: this.peer(p.chatId),
      message: p.text,
      ...sendEntities(p.entities),
      randomId: returnBigInt(p.randomId),
      ...replyHeader(p.replyTo, p.topicId),
    });
    const text = p.text.trim();
    return this.sendOnce(req, p.chatId, p.randomId, (m) => !m.media && m.message.trim() === text);
  }

  /**
   * Send with our random_id and return the message id. A replayed original (Telegram's other
   * answer to a repeat) carries the id like a first send; RANDOM_ID_DUPLICATE does not, so the
   * message is looked up among the chat's latest ones. Not found: AlreadyDoneError (sent, id
   * unknown — the caller cannot add it to the stored history).
   */
  private async sendOnce(
    req: Api.messages.SendMessage | Api.messages.SendMedia,
    chatId: string,
    randomId: string,
    same: (m: Api.Message) => boolean,
    storedToo = false,
  ): Promise<number> {
    try {
      return this.sentId(await this.call(req, chatId), randomId, req.className);
    } catch (e) {
      if (!(e instanceof AlreadyDoneError)) throw e;
      const id = (await this.ownMessages(chatId, DUPLICATE_LOOKBACK, storedToo)).find(same)?.id;
      if (id !== undefined) return id;
      throw new AlreadyDoneError(
        `sent before (duplicate random_id), but not among the chat's last ${DUPLICATE_LOOKBACK} messages; not added to the stored history`,
      );
    }
  }

  /**
   * Her own messages among the chat's latest `limit`, newest first (one messages.GetHistory); not
   * those the store holds already unless `storedToo`.
   */
  private async ownMessages(chatId: string, limit: number, storedToo: boolean): Promise<Api.Message[]> {
    const res = await this.call(
      new Api.messages.GetHistory({
        peer: this.peer(chatId),
        limit,
        offsetId: 0,
        offsetDate: 0,
        addOffset: 0,
        maxId: 0,
        minId: 0,
        hash: returnBigInt(0),
      }),
      chatId,
    );
    if (res instanceof Api.messages.MessagesNotModified) return [];
    return res.messages.filter(
      (m): m is Api.Message =>
        m instanceof Api.Message && m.out === true && (storedToo || !this.o.isStored?.(chatId, m.id)),
    );
  }

  async setTyping(p: { chatId: string; action: ChatAction; topicId?: number }): Promise<void> {
    const action =
      p.action === "typing"
        ? new Api.SendMessageTypingAction()
        : p.action === "sticker"
          ? new Api.SendMessageChooseStickerAction()
          : p.action === "record"
            ? new Api.SendMessageRecordAudioAction()
            : p.action === "upload-voice"
              ? new Api.SendMessageUploadAudioAction({ progress: 0 })
              : new Api.SendMessageCancelAction();
    await this.call(
      new Api.messages.SetTyping({
        peer: this.peer(p.chatId),
        action,
        ...(p.topicId ? { topMsgId: p.topicId } : {}),
      }),
      p.chatId,
      undefined,
      COSMETIC_TIMEOUT_MS,
    );
  }

  /**
   * The account's online status (`account.updateStatus`): online while the persona reads and
   * answers, offline when it goes quiet (life/presence.ts). Telegram lets an online status lapse
   * about five minutes after the last one (docs/telegram-facts.md).
   */
  async setOnline(online: boolean): Promise<void> {
    await this.call(
      new Api.account.UpdateStatus({ offline: !online }),
      this.o.selfId ?? "self",
      undefined,
      COSMETIC_TIMEOUT_MS,
    );
  }

  async markRead(p: { chatId: string; maxId: number }): Promise<void> {
    const peer = this.peer(p.chatId);
    await this.call(
      isChannelId(p.chatId)
        ? new Api.channels.ReadHistory({ channel: peer, maxId: p.maxId })
        : new Api.messages.ReadHistory({ peer, maxId: p.maxId }),
      p.chatId,
      METHOD.read,
      COSMETIC_TIMEOUT_MS,
    );
  }

  /**
   * React with `emoji`, or — when the chat does not allow it — with the closest reaction it does
   * allow (its `available_reactions`, see chat-reactions.ts), or with nothing. Telegram refusing
   * the reaction anyway (REACTION_INVALID: the chat's settings changed since they were read)
   * makes it read them again and choose once more; a refusal is never a failed task.
   */
  async react(p: { chatId: string; messageId: number; emoji: string }): Promise<string | undefined> {
    const reactions = this.o.reactions;
    const choose = async () => {
      const allowed = await reactions?.allowed(p.chatId);
      return allowed ? closestAllowed(p.emoji, allowed) : p.emoji;
    };
    const send = (emoji: string) =>
      this.call(
        new Api.messages.SendReaction({
          peer: this.peer(p.chatId),
          msgId: p.messageId,
          reaction: [new Api.ReactionEmoji({ emoticon: emoji })],
        }),
        p.chatId,
      );
    const refused = (e: unknown) => e instanceof PermanentError && e.code === "REACTION_INVALID";
    const first = await choose();
    if (first === undefined) return undefined;
    try {
      await send(first);
      return first;
    } catch (e) {
      if (!refused(e)) throw e;
    }
    reactions?.forget(p.chatId);
    const second = await choose();
    if (second === undefined || second === first) return undefined;
    try {
      await send(second);
      return second;
    } catch (e) {
      if (refused(e)) return undefined;
      throw e;
    }
  }

  async sendSticker(p: {
    chatId: string;
    set: string;
    name: string;
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number | "not-found"> {
    try {
      return await this.sendStickerOnce(p);
    } catch (e) {
      // File references expire; the cached set goes stale with them. Fetch it again, once.
      if (!(e instanceof PermanentError) || e.code !== "FILE_REFERENCE_EXPIRED") throw e;
      this.stickerSets.forget(p.set);
      return this.sendStickerOnce(p);
    }
  }

  private async sendStickerOnce(p: {
    chatId: string;
    set: string;
    name: string;
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number | "not-found"> {
    const hit = await this.stickerSets.find(p.set, p.name, p.chatId);
    if (!hit) return "not-found";
    const req = new Api.messages.SendMedia({
      peer: this.peer(p.chatId),
      media: new Api.InputMediaDocument({
        id: new Api.InputDocument({
          id: hit.doc.id,
          accessHash: hit.doc.accessHash,
          fileReference: hit.doc.fileReference,
        }),
      }),
      message: "",
      randomId: returnBigInt(p.randomId),
      ...replyHeader(p.replyTo, p.topicId),
    });
    const docId = hit.doc.id.toString();
    return this.sendOnce(
      req,
      p.chatId,
      p.randomId,
      (m) => m.media instanceof Api.MessageMediaDocument && m.media.document?.id.toString() === docId,
    );
  }

  /**
   * A voice note (voice-upload.ts): uploaded, then sent with the task's random_id. A repeat after
   * an unknown outcome uploads again (parts are cheap, and Telegram keeps no upload across a
   * restart for us) and Telegram's random_id check keeps it one message.
   */
  async sendVoice(p: Parameters<NonNullable<ChatActions["sendVoice"]>>[0]): Promise<number> {
    let file: Api.TypeInputFile;
    try {
      // A shortened request timeout (tests) shortens the upload's too.
      const limit = this.o.requestTimeoutMs !== undefined ? this.o.requestTimeoutMs * 4 : undefined;
      file = await uploadVoice(this.o.client, p, limit);
    } catch (e) {
      // Nothing was sent: a timed-out upload is a plain failure to retry, not an outcome in doubt
      // (only messages.sendMedia may leave the task in doubt — past the gates and the answer age).
      const err = taskError(e, "upload.SaveFilePart", p.chatId);
      throw nothingSent(err instanceof OutcomeUnknownError ? new Error(`voice upload: ${err.message}`) : err);
    }
    const header = replyHeader(p.replyTo, p.topicId);
    const req = voiceRequest({
      peer: this.peer(p.chatId),
      file,
      note: p,
      randomId: p.randomId,
      ...(header.replyTo ? { replyTo: header.replyTo } : {}),
    });
    // A catch-up may have stored it already (a restart after the send went out), without its
    // words: stored or not, the newest own voice note that is exactly this one or one an earlier
    // attempt of this send put out (the words are written into the stored row then,
    // runtime/compose-tasks.ts). Nothing else: the owner's own voice note stays the owner's.
    const marks = [...(p.sentBefore ?? []), { seconds: p.seconds, waveform: p.waveform.toString("base64") }];
    return this.sendOnce(req, p.chatId, p.randomId, (m) => isOneOf(m, marks), true);
  }

  async findVoice(p: {
    chatId: string;
    marks: readonly VoiceMark[];
  }): Promise<(VoiceMark & { id: number }) | undefined> {
    const m = (await this.ownMessages(p.chatId, VOICE_LOOKBACK, true)).find((x) => isOneOf(x, p.marks));
    const mark = m && voiceMarkOf(m);
    return m && mark ? { id: m.id, ...mark } : undefined;
  }

  /** The emoji of a set an earlier sticker send fetched (the cache only: no request). */
  knownStickerEmoji(set: string): Promise<readonly string[] | undefined> {
    return this.stickerSets.known(set);
  }

  async block(p: { chatId: string }): Promise<void> {
    await this.call(new Api.contacts.Block({ id: this.peer(p.chatId) }), p.chatId);
  }

  async unblock(p: { chatId: string }): Promise<void> {
    await this.call(new Api.contacts.Unblock({ id: this.peer(p.chatId) }), p.chatId, METHOD.block);
  }

  /**
   * The input peer for a chat. Built from the stored access hash when there is one, because a
   * restarted GramJS session has an empty entity cache; otherwise GramJS resolves the id itself.
   */
  private peer(chatId: string): Api.TypeInputPeer | ReturnType<typeof returnBigInt> {
    if (chatId === this.o.selfId) return new Api.InputPeerSelf();
    const c = this.o.lookupChat(chatId);
    if (c?.chatType === "group") return new Api.InputPeerChat({ chatId: returnBigInt(chatId.slice(1)) });
    if (c?.accessHash !== undefined) {
      const accessHash = returnBigInt(c.accessHash);
      if (c.chatType === "dm") return new Api.InputPeerUser({ userId: returnBigInt(chatId), accessHash });
      if (isChannelId(chatId))
        return new Api.InputPeerChannel({ channelId: returnBigInt(chatId.slice(4)), accessHash });
    }
    return returnBigInt(chatId);
  }

  rateKeys(action: keyof typeof METHOD, chatId: string): readonly string[] {
    return rateKeys(action, chatId);
  }

  private async call<R extends Api.AnyRequest>(
    req: R,
    chatId: string,
    method: string = req.className,
    timeoutMs?: number,
  ): Promise<R["__response"]> {
    const limit = this.o.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
    const ms = timeoutMs !== undefined ? Math.min(timeoutMs, limit) : limit;
    const answer = this.o.client.invoke(req).then((res) => {
      this.o.onResult?.(res);
      return res;
    });
    try {
      // Real time, not the task clock: this bounds network I/O, like the reply fetch.
      return await withTimeout(answer, ms, req.className, systemClock);
    } catch (e) {
      if (isFrozen(e)) this.o.onFrozen?.(req.className, e);
      if (e instanceof errors.RPCError && e.errorMessage === "USER_BANNED_IN_CHANNEL")
        this.o.onGroupBan?.(chatId);
      if (e instanceof errors.RPCError) this.o.onRefused?.(chatId, e.errorMessage, topicOf(req), isSend(req));
      throw taskError(e, method, chatId);
    }
  }

  /** The new message's id from a send's answer; an answer without one is an error. */
  private sentId(res: Api.TypeUpdates, randomId: string, method: string): number {
    if (res instanceof Api.UpdateShortSentMessage) return res.id;
    if (res instanceof Api.Updates || res instanceof Api.UpdatesCombined) {
      for (const u of res.updates) {
        if (u instanceof Api.UpdateMessageID && u.randomId?.toString() === randomId) return u.id;
      }
      for (const u of res.updates) {
        if (
          (u instanceof Api.UpdateNewMessage || u instanceof Api.UpdateNewChannelMessage) &&
          u.message instanceof Api.Message
        )
          return u.message.id;
      }
    }
    throw new Error(`${method}: the server's answer (${res.className}) carries no message id`);
  }
}

function replyHeader(
  replyTo: number | undefined,
  topicId: number | undefined,
): { replyTo?: Api.InputReplyToMessage } {
  if (topicId === 1) topicId = undefined; // the General topic takes no reply header
  if (replyTo === undefined && topicId === undefined) return {};
  return {
    replyTo: new Api.InputReplyToMessage({
      replyToMsgId: replyTo ?? topicId!,
      ...(topicId !== undefined ? { topMsgId: topicId } : {}),
    }),
  };
}

/** The forum topic a request names (a send's reply header's top message, typing's topMsgId), for a refusal that names it (TOPIC_CLOSED). */
function topicOf(req: Api.AnyRequest): number | undefined {
  if (req instanceof Api.messages.SetTyping)
    return typeof req.topMsgId === "number" ? req.topMsgId : undefined;
  const r = (req as { replyTo?: unknown }).replyTo;
  return r instanceof Api.InputReplyToMessage ? (r.topMsgId ?? undefined) : undefined;
}

/** A request that posts a message: one naming no topic in a forum goes to General. */
function isSend(req: Api.AnyRequest): boolean {
  return req instanceof Api.messages.SendMessage || req instanceof Api.messages.SendMedia;
}
