import type { FormatEntity } from "../base/text-format";

/**
 * What identifies a voice note she sent, kept in the send task's payload before the note goes
 * out (small: never the audio): its duration and Telegram's packed waveform (base64). A restart
 * finds the note in her history by it instead of paying the speech again.
 */
export interface VoiceMark {
  readonly seconds: number;
  readonly waveform: string;
  /** When it was made (Telegram's time, unix seconds): an earlier note of hers that sounds the same is not it. */
  readonly at?: number;
}

/** The chat actions the persona shows (Telegram's sendMessage*Action). */
export type ChatAction = "typing" | "sticker" | "record" | "upload-voice" | "cancel";
/**
 * What the task engine needs from a chat platform. The production implementation is GramJS
 * (src/telegram/outbound/gramjs-actions.ts); tests run that same implementation against the emulator.
 * Implementations raise PermanentError / RateLimitedError / AlreadyDoneError (tasks/errors.ts);
 * anything else is treated as transient.
 */
export interface ChatActions {
  /**
   * Send text, with its formatting entities when it has any; returns the new message id.
   * `randomId` makes a retry of the same send a no-op.
   */
  sendText(o: {
    chatId: string;
    text: string;
    entities?: readonly FormatEntity[];
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number>;
  /**
   * Show (or with "cancel", stop) a chat action: typing, choosing a sticker, recording a voice
   * message (`record`), uploading one (`upload-voice`).
   */
  setTyping(o: { chatId: string; action: ChatAction; topicId?: number }): Promise<void>;
  /**
   * Upload and send a voice note (Ogg Opus) with its duration and waveform; returns the new
   * message id. `randomId` makes a retry of the same send a no-op, as for text. Absent: the
   * platform cannot (the handler writes instead). `sentBefore`: the notes an earlier attempt of
   * this send may have put out (a restart made the note again): on RANDOM_ID_DUPLICATE the message
   * looked for is one of them or this one, matched exactly (duration and waveform) — never merely
   * the newest voice note, which may be the owner's.
   */
  sendVoice?(o: {
    chatId: string;
    ogg: Buffer;
    seconds: number;
    waveform: Buffer;
    sentBefore?: readonly VoiceMark[];
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number>;
  /**
   * Her newest outgoing voice note among the chat's last few messages that is exactly one of
   * `marks` (duration and waveform), or undefined: whether a voice send that may have applied
   * before a restart is already in the chat (one getHistory, no upload).
   */
  findVoice?(o: {
    chatId: string;
    marks: readonly VoiceMark[];
  }): Promise<(VoiceMark & { id: number }) | undefined>;
  /** Mark the chat read up to `maxId`. */
  markRead(o: { chatId: string; maxId: number }): Promise<void>;
  /**
   * React to a message. Returns the reaction put — `emoji`, or the closest one the chat allows —
   * or undefined when the chat allows nothing close (then nothing was sent).
   */
  react(o: { chatId: string; messageId: number; emoji: string }): Promise<string | undefined>;
  /**
   * Send a sticker from a set, found by its emoji or name; returns the message id, or
   * "not-found" when the set or sticker does not exist (the caller falls back to text).
   */
  sendSticker(o: {
    chatId: string;
    set: string;
    name: string;
    replyTo?: number;
    topicId?: number;
    randomId: string;
  }): Promise<number | "not-found">;
  /**
   * The emoji of a sticker set's stickers as fetched for an earlier sticker send — no request;
   * undefined until a send fetched it (or when it does not exist). Absent: never known.
   */
  knownStickerEmoji?(set: string): Promise<readonly string[] | undefined>;
  block(o: { chatId: string }): Promise<void>;
  unblock(o: { chatId: string }): Promise<void>;
  /** Rate-limit keys an action of this kind in this chat is subject to. */
  rateKeys(
    action: "send" | "sticker" | "react" | "typing" | "read" | "block",
    chatId: string,
  ): readonly string[];
}
