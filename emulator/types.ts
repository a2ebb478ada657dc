/**
 * Public data shapes of the in-process Telegram emulator.
 *
 * These are plain readonly records handed to tests, the sandbox and the benchmark. They never
 * carry GramJS objects except where the caller explicitly works at the TL level
 * (`entities`, `RecordedRequest.request`).
 */
import type { Api } from "telegram";
import type { NetworkClock } from "./ping-loop";

/** How a login code reaches its owner. */
export type CodeDelivery = "app" | "sms" | "call" | "sms-word" | "sms-phrase" | "email";

/** A simulated user (human or bot) or an account a TelegramClient logs in as. */
export interface EmuUser {
  /** Plain number id (kept below 2^40 so it is exact as a JS number and as a TL long). */
  readonly id: number;
  readonly firstName: string;
  readonly lastName?: string;
  readonly username?: string;
  readonly bot: boolean;
  /** True for users created with `addAccount` (they own a mailbox and can be attached). */
  readonly isAccount: boolean;
  /** Access hash the emulator expects in InputPeerUser / InputUser (a safe integer). */
  readonly accessHash: number;
}

/** The three chat shapes the emulator models. */
type EmuChatKind = "dm" | "group" | "supergroup";

/** A chat. For a DM the record is shared by both participants. */
export interface EmuChat {
  readonly kind: EmuChatKind;
  /**
   * Raw id: the channel id for supergroups, the chat id for basic groups, and for DMs the id of
   * the user `peerId` points at.
   */
  readonly id: number;
  /**
   * GramJS "marked" id as a string: users "123", basic groups "-123", supergroups "-100123".
   * For a DM this is the peer as seen from the account side (the non-account participant, or
   * the second participant when both or neither are accounts); see `peerIdFor` for the other side.
   */
  readonly peerId: string;
  readonly title?: string;
  readonly forum: boolean;
  /** Access hash expected in InputPeerChannel / InputChannel (supergroups only, else 0). */
  readonly accessHash: number;
  /** A broadcast channel (kind "supergroup" on the server side: channel ids, pts, access hash). */
  readonly broadcast?: boolean;
}

/** One message as a given viewer sees it. */
export interface EmuMessage {
  readonly chat: EmuChat;
  /** Id in the viewer's id space (per-account mailbox for DMs/basic groups, per channel otherwise). */
  readonly id: number;
  readonly fromId: number;
  readonly fromName: string;
  readonly text: string;
  /** Id (same id space) of the message this one replies to; not set for a plain topic message. */
  readonly replyTo?: number;
  /** Forum topic id (id of the topic's service root message). */
  readonly topicId?: number;
  /** Unix time in milliseconds. */
  readonly date: number;
  /** Marked id of the chat it was sent as (anonymous admin: the group; linked channel: the channel). */
  readonly senderChatId?: string;
  readonly media?: "sticker" | EmuMediaInput["kind"];
  readonly stickerEmoji?: string;
  /** Telegram's id of the message's file (photo, document or sticker). */
  readonly fileId?: number;
  /** A voice or audio message's file as the server stores it, with its attributes. */
  readonly audio?: {
    readonly bytes: Buffer;
    readonly mimeType: string;
    readonly duration: number;
    /** Voice: the packed 5-bit waveform the sender attached. */
    readonly waveform?: Buffer;
  };
  /** The entities Telegram keeps with the text (formatting, mentions), when it has any. */
  readonly entities?: readonly Api.TypeMessageEntity[];
}

/**
 * Media a member posts (`post({ media })`): a photo or a document (voice, video note, video, GIF,
 * audio, any file) with its bytes — served by upload.getFile — or a sticker of an added set.
 */
export type EmuMediaInput =
  | { readonly kind: "photo"; readonly bytes: Buffer; readonly width?: number; readonly height?: number }
  | {
      readonly kind: "voice" | "video_note" | "video" | "gif" | "audio" | "document";
      readonly bytes: Buffer;
      readonly mimeType: string;
      readonly fileName?: string;
      /** Seconds. */
      readonly duration?: number;
      /** Voice: the packed 5-bit waveform the sender's app attaches (Telegram's apps always do). */
      readonly waveform?: Buffer;
      readonly title?: string;
      readonly performer?: string;
      /** GIFs and videos: the still thumbnail's bytes (default a tiny JPEG); null: none. */
      readonly thumb?: Buffer | null;
    }
  | { readonly kind: "sticker"; readonly set: string; readonly emoji: string }
  /** The very file of an earlier message (a forward or resend: same file id, same unique id). */
  | { readonly kind: "same-as"; readonly chat: EmuChat; readonly id: number };

/** What `onMessage` listeners receive: the message as the reference account sees it. */
export type EmuMessageEvent = EmuMessage;

/** Result of `post()`: the message as the reference account sees it, plus per-account ids. */
export interface PostedMessage extends EmuMessage {
  /** The id `account` sees for this message, or undefined when it is not in that account's view. */
  idFor(account: EmuUser): number | undefined;
}

/** Arguments of `post()` / `buildIncoming()`. */
export interface PostOptions {
  readonly chat: EmuChat;
  readonly from: EmuUser;
  readonly text: string;
  /** Id of the replied-to message as the reference account (first attached member account) sees it. */
  readonly replyTo?: number;
  /**
   * A partial quote of the replied-to message (the part the sender selected): it must occur in that
   * message's text. Readers get it in the reply header (`quote`, `quoteText`, `quoteOffset`).
   */
  readonly quote?: string;
  /** Forum topic to post in (supergroups with `forum: true`). */
  readonly topicId?: number;
  /** Extra entities; @mentions in `text` are detected automatically like Telegram's server does. */
  readonly entities?: readonly Api.TypeMessageEntity[];
  /**
   * Send as a chat instead of as `from`: the supergroup itself (an anonymous admin: from_id is
   * the group) or a broadcast channel linked to it (`createChannel({ discussion })`: the post is
   * stored in the channel and arrives in the group as its automatic forward, from_id the channel).
   */
  readonly sendAs?: EmuChat;
  /** A photo, document or sticker; `text` is then its caption ("" for none). */
  readonly media?: EmuMediaInput;
  /** Album: posts with the same value are one album (`grouped_id`). */
  readonly groupedId?: number;
  /**
   * A forward of message `id` of `chat` (the id as `from` sees it): the new message carries the
   * original's text (`text` must be that text, or "") and `fwd_from` with the original's sender
   * and date; forwarded into Saved Messages, also `saved_from_peer` / `saved_from_msg_id`.
   */
  readonly forward?: { readonly chat: EmuChat; readonly id: number };
  /** Sent through this inline bot (`@bot query` in the input field): the message carries `via_bot_id`. */
  readonly viaBot?: EmuUser;
  /**
   * A reply to message `id` of *another* chat (inputReplyToMessage with reply_to_peer_id; the
   * id as `from` sees it), optionally quoting part of it: readers get reply_to_msg_id, the other
   * chat as reply_to_peer_id, the original's sender in reply_from, and the quote.
   */
  readonly replyElsewhere?: { readonly chat: EmuChat; readonly id: number; readonly quote?: string };
}

/** One request some attached client sent. */
export interface RecordedRequest {
  readonly account: EmuUser;
  /** TL name as GramJS spells it, e.g. "messages.SendMessage". */
  readonly method: string;
  readonly request: Api.AnyRequest;
  /** Emulator wall time (ms) when the request reached the fake server. */
  readonly at: number;
}

/** How an account logs in through the network path (`addAccount`). */
export interface LoginDetails {
  /** `+` and digits; without it the account can only be attached. */
  readonly phone?: string;
  /** Its 2FA password (stored as an SRP verifier, as Telegram does). */
  readonly password?: string;
  readonly passwordHint?: string;
  /** Home DC, 1–5 (default 4). */
  readonly dc?: number;
  /**
   * How login codes reach the owner: the first way, then the ways auth.resendCode moves to
   * (default app → SMS → call). "sms-word" / "sms-phrase": an SMS with a secret word / phrase;
   * "email": by e-mail — without `loginEmail`, the login must set one up first.
   */
  readonly codeDelivery?: readonly CodeDelivery[];
  /** The account's login e-mail (for "email" delivery). */
  readonly loginEmail?: string;
}

/** Constructor options of `TelegramEmulator`. */
export interface EmulatorOptions {
  /** How long a login code stays valid, ms (default 5 minutes). */
  readonly loginCodeTtlMs?: number;
  /** The only app credentials auth.sendCode accepts (default: any); others → API_ID_INVALID. */
  readonly app?: { readonly apiId: number; readonly apiHash: string };
  /** Round-trip every request and result (and delivered update) through TL bytes. Default false. */
  readonly strictTl?: boolean;
  /** Wall time in ms, used for message dates. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * The clock the network runs on: GramJS's ping loop (every attached client runs it: a ping
   * every 9 s), the ping delay (`emu.net.setPingDelay`) and GramJS's 1 s pause before it
   * reconnects. Default: real timers. A test's fake clock (src/base's FakeClock fits) makes an
   * hour of pings a matter of `advance()`; give the same one as `now`.
   */
  readonly networkClock?: NetworkClock;
  /** Limits of Telegram's update protocol (getDifference slices, TooLong thresholds). */
  readonly updateLimits?: Partial<UpdateLimits>;
  /** How a repeated random_id is answered (see `DuplicateMode`). Default "error". */
  readonly duplicates?: DuplicateMode;
  /**
   * "full": every new message arrives as `Updates{UpdateNew(Channel)Message}` with full users
   * and chats. "telegram" (default): as Telegram sends them — DMs as UpdateShortMessage,
   * basic-group messages as UpdateShortChatMessage (no users/chats), sends to them answered with
   * UpdateShortSentMessage, supergroup senders the account never resolved as `min` users.
   */
  readonly updateShapes?: UpdateShapes;
}

/** See `EmulatorOptions.updateShapes`. */
export type UpdateShapes = "telegram" | "full";

/**
 * How `updates.getDifference` and `updates.getChannelDifference` cut their answers. Telegram
 * documents none of the account-side numbers; these defaults are this emulator's choice.
 */
export interface UpdateLimits {
  /** Most pts events one `updates.getDifference` answers; more → `differenceSlice`. Default 1000. */
  readonly differenceSlice: number;
  /**
   * A client further behind than this many pts gets `differenceTooLong` (the request's
   * `ptsTotalLimit`, when smaller, wins — as Telegram documents). Default 1,000,000.
   */
  readonly differenceTooLongAfter: number;
  /** Cap on `limit` of `updates.getChannelDifference`: 100 for user accounts. */
  readonly channelDifferenceLimit: number;
  /**
   * A client further behind a channel than this gets `channelDifferenceTooLong`. Default: the
   * request's limit (capped by `channelDifferenceLimit`), so a gap over 100 is "too long"; set it
   * higher to see `channelDifference` answers with `final: false` instead.
   */
  readonly channelTooLongAfter: number | undefined;
  /** `timeout` (seconds) in channel difference answers. Default 30. */
  readonly channelTimeout: number;
  /**
   * Supergroups (and broadcast channels) with more members than this are not pushed: their new
   * messages reach members only through updates.getChannelDifference, and a difference never
   * names them (see channel-news.ts). Telegram publishes no number; default 1,000.
   */
  readonly pushedMembersMax: number;
}

/** The server's pts / qts / seq / date for one account, as `updates.getState` answers it. */
export interface EmuUpdateState {
  readonly pts: number;
  readonly qts: number;
  readonly seq: number;
  /** Unix seconds of the account's latest pts event (0 before any). */
  readonly date: number;
}

/**
 * Telegram's two answers to a send whose random_id the account already used (both seen in the
 * wild; nothing new is sent either way): "error" — RPC 500 RANDOM_ID_DUPLICATE; "replay" — the
 * original message again (UpdateMessageID with the same random_id, the message, pts_count 0).
 */
export type DuplicateMode = "error" | "replay";

/** Options of `emu.faults.failNext()`. */
export interface FailNextOptions {
  /** RPC error code; default 420 for FLOOD_WAIT_* / SLOWMODE_WAIT_*, 400 otherwise. */
  readonly code?: number;
  /** How many matching requests fail; default 1. */
  readonly times?: number;
  /** Only requests for which this returns true fail (and consume the rule). */
  readonly match?: (request: Api.AnyRequest) => boolean;
  /** Only requests about this chat (or user; `contacts.ResolveUsername`: its username) fail. */
  readonly peer?: EmuChat | EmuUser;
}

/** Options of `emu.faults.hang()`. */
export interface HangOptions {
  /** Never answer either before touching server state, or after applying the request. */
  readonly when: "before-apply" | "after-apply";
  /** How many requests of that method hang; default 1. */
  readonly times?: number;
  /** Called at the moment a request hangs — e.g. to kill the process that sent it. */
  readonly onHang?: () => void;
  /** Only requests about this chat (or user) hang. */
  readonly peer?: EmuChat | EmuUser;
}

/** A chat action (typing, choosing a sticker, …) an account reported. */
export interface TypingRecord {
  readonly account: EmuUser;
  readonly chat: EmuChat;
  /** TL class name of the action, e.g. "SendMessageTypingAction". */
  readonly action: string;
  readonly topicId?: number;
  readonly at: number;
}

/** One `account.updateStatus` an account sent: going online (`offline` false) or offline. */
export interface StatusRecord {
  readonly account: EmuUser;
  readonly offline: boolean;
  /** Emulator wall time in ms. */
  readonly at: number;
}

/** A reaction some user put on a message. */
export interface EmuReaction {
  readonly userId: string;
  readonly emoji: string;
}

/** An added sticker set, with what `client.sendFile(peer, { file: new Api.InputDocument(...) })` needs. */
export interface EmuStickerSet {
  readonly id: number;
  readonly accessHash: number;
  readonly shortName: string;
  readonly title: string;
  readonly stickers: readonly EmuSticker[];
}

/** One sticker document of an added set. */
interface EmuSticker {
  readonly id: number;
  readonly accessHash: number;
  readonly fileReference: Buffer;
  readonly emoji: string;
}

/**
 * A session as the account's device list ("Devices" in the apps; account.getAuthorizations)
 * shows it: what the client sent in initConnection when it connected.
 */
export interface EmuDevice {
  readonly apiId: number;
  readonly deviceModel: string;
  readonly systemVersion: string;
  readonly appVersion: string;
}

/** Updates prepared for one account (see `TelegramEmulator.buildIncoming`). */
export interface PreparedDelivery {
  readonly account: EmuUser;
  /** `Updates`, or a short update in the "telegram" shape. */
  readonly updates: Api.TypeUpdates;
}
