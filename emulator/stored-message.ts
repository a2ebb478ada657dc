/**
 * Server-side records of the emulator: what Telegram's database would hold for chats, messages,
 * mailboxes and sticker sets. Internal to the emulator; tests see `EmuChat` / `EmuMessage`.
 */
import type { Api } from "telegram";
import type { AllowedReactions } from "../src/base/standard-reactions";
import type { FileRecord } from "./file-store";
import type { WebPageRecord } from "./web-pages";
import type { PtsEvent, PtsLog } from "./pts-log";
import type { EmuChat } from "./types";

/** A sticker the emulator can send (one document of an added sticker set). */
export interface StickerDoc {
  readonly id: number;
  readonly accessHash: number;
  /** The sticker's file (its current file reference, its bytes for upload.getFile). */
  readonly file: FileRecord;
  readonly emoji: string;
  readonly set: StickerSetRecord;
}

/** Media kinds a posted message can carry besides stickers. */
type MediaRecordKind = "photo" | "voice" | "video_note" | "video" | "gif" | "audio" | "document";

/** A photo or document attached to a stored message. */
export interface MediaRecord {
  readonly kind: MediaRecordKind;
  readonly file: FileRecord;
  readonly fileName?: string;
  /** Seconds (voice, audio, video, video note, GIF). */
  readonly duration?: number;
  readonly width?: number;
  readonly height?: number;
  readonly title?: string;
  readonly performer?: string;
  /** Voice: the 5-bit waveform the sender attached (DocumentAttributeAudio.waveform). */
  readonly waveform?: Buffer;
}

/** An added sticker set. */
export interface StickerSetRecord {
  readonly id: number;
  readonly accessHash: number;
  readonly shortName: string;
  readonly title: string;
  readonly docs: StickerDoc[];
}

/** Server state of one chat. */
export interface ChatRecord {
  readonly chat: EmuChat;
  /** User ids of the members (for a DM: the two participants, once when it is the self chat). */
  readonly members: Set<number>;
  /** Every message ever stored in the chat, in creation order (= id order in every view). */
  readonly messages: StoredMessage[];
  /** Supergroups: message by channel message id. */
  readonly byChannelId: Map<number, StoredMessage>;
  /** Supergroups: last channel message id. */
  lastChannelId: number;
  /** Supergroups: the channel's pts sequence and its event log. */
  readonly pts: PtsLog<StoredMessage>;
  /** Forum topics: root message id → title. */
  readonly topics: Map<number, string>;
  /** Highest message id (in the account's id space) each account marked read. */
  readonly readMax: Map<number, number>;
  /** Highest id (in the account's id space) of each account's own messages others have read. */
  readonly readOutbox: Map<number, number>;
  /** Unix seconds the chat was created. */
  readonly createdAt: number;
  /** Supergroups: accounts removed by an admin (they see ChannelForbidden), until they are added again. */
  readonly banned: Set<number>;
  /** Supergroups: the channel's pts when each account joined after its creation (updateChannelTooLong's pts). */
  readonly joinedPts: Map<number, number>;
  /** A broadcast channel's discussion supergroup, or a supergroup's linked channel. */
  linked?: ChatRecord;
  /** What members may react with (groups, supergroups; the full chat's available_reactions). */
  reactions: AllowedReactions;
  /** A basic group upgraded to a supergroup (chat-upgrade.ts): deactivated, `migrated_to` it. */
  migratedTo?: ChatRecord;
  /**
   * A supergroup made from a basic group: channelFull's migrated_from_chat_id, and the group's
   * last message (its migrate-to service message: migrated_from_max_id, in each viewer's ids).
   */
  migratedFrom?: { readonly chat: ChatRecord; readonly last: StoredMessage };
}

/** The service actions the emulator stores. */
interface ServiceAction {
  readonly action:
    | "channel-create"
    | "topic-create"
    | "topic-edit"
    | "chat-delete-user"
    | "chat-migrate-to"
    | "channel-migrate-from";
  readonly title: string;
  /** topic-edit: the topic was closed (true) or reopened (false); absent: a rename. */
  readonly closed?: boolean;
  /** chat-delete-user: the member who left or was removed (member-departures.ts). */
  readonly userId?: number;
  /** chat-migrate-to: the supergroup's channel id; channel-migrate-from: the old basic group's id. */
  readonly peer?: number;
}

/** One message as the server stores it, independent of any viewer. */
export interface StoredMessage {
  /** Global creation order; also the id shown when no account can see the message. */
  readonly serial: number;
  readonly chat: ChatRecord;
  readonly fromId: number;
  /** Current text and entities (an edit replaces them). */
  text: string;
  entities: readonly Api.TypeMessageEntity[];
  /** Unix time in ms. */
  readonly date: number;
  /** Unix time in ms of the last edit. */
  editDate?: number;
  /** The message this one semantically replies to (not the topic root of a plain topic message). */
  readonly replyTo?: StoredMessage;
  /** The partial quote of `replyTo` the sender selected, and where it starts (UTF-16 offset). */
  readonly quote?: { readonly text: string; readonly offset: number };
  readonly topicId?: number;
  readonly sticker?: StickerDoc;
  /** A photo or document (voice, video, file, …). */
  readonly media?: MediaRecord;
  /** The link preview the server attached (web-pages.ts); its state changes when it is complete. */
  readonly webPage?: WebPageRecord;
  /** Album: messages posted together share it. */
  readonly groupedId?: number;
  /** Set for service messages: the supergroup's creation (id 1), forum topic roots and renames. */
  readonly service?: ServiceAction;
  /** Supergroups: the channel message id. */
  readonly channelId?: number;
  /**
   * Sent as a chat, not as its user: the supergroup itself (an anonymous admin) or a broadcast
   * channel (its post, automatically forwarded into the linked discussion group).
   */
  readonly senderChat?: ChatRecord;
  /** The message this one is a forward of (a channel post's automatic forward, or a user's forward). */
  readonly forwardOf?: StoredMessage;
  /** The inline bot it was sent through (`via_bot_id`). */
  readonly viaBotId?: number;
  /** A reply to a message of another chat, with the part of it quoted (if any). */
  readonly replyElsewhere?: {
    readonly msg: StoredMessage;
    readonly quote?: { readonly text: string; readonly offset: number };
  };
  /** DMs and basic groups: account id → id in that account's mailbox. */
  readonly boxIds: Map<number, number>;
  /** The pts its new-message update carries: the channel's (supergroups) or per account (`boxPts`). */
  channelPts?: number;
  /** DMs and basic groups: account id → the account pts this message's arrival moved to. */
  readonly boxPts: Map<number, number>;
  deleted: boolean;
  /**
   * user id → reaction (one standard reaction per user, like a non-premium account), in the
   * order they were last set: the newest last.
   */
  readonly reactions: Map<number, ReactionRecord>;
}

/** One user's reaction on a message. */
interface ReactionRecord {
  readonly emoji: string;
  /** Unix time in ms it was set. */
  readonly date: number;
}

/** An account's server-side mailbox: the id space it shares across all its DMs and basic groups. */
export interface Mailbox {
  lastId: number;
  readonly byId: Map<number, StoredMessage>;
  /** The account's pts sequence (its DMs, basic groups, reads) and its event log. */
  readonly pts: PtsLog<StoredMessage>;
  /** Telegram's qts (secret chats, bots) and seq; carried in states, never moved here. */
  readonly qts: number;
  readonly seq: number;
  /** Users this account received as full (non-min) objects; others arrive as `min` in supergroups. */
  readonly knownUsers: Set<number>;
  /** random_id values this account already used, with the message each one created. */
  readonly randomIds: Map<string, StoredMessage>;
  readonly blocked: Set<number>;
  /** Users in this account's contact list (their User objects carry `contact: true` for it). */
  readonly contacts: Set<number>;
  /**
   * Updates without pts that could not reach the account's client when they were pushed (no
   * client attached, a dead link, a silenced session): updateChannelTooLong, and updateChat /
   * updateChannel for a change of the chat's settings. The next complete updates.getDifference
   * carries them in `other_updates`, with their chats, and empties this list. (Membership pushes
   * are not kept: a client that was away learns it was removed from CHANNEL_PRIVATE.)
   */
  readonly offline: OfflineUpdate[];
  /**
   * Channels whose pts moved while this account could not be pushed the update: its next
   * complete updates.getDifference names each with updateChannelTooLong and empties this set
   * (see channel-news.ts).
   */
  readonly channelNews: Set<ChatRecord>;
}

/** An update kept for an account's next difference (see Mailbox.offline). */
export interface OfflineUpdate {
  readonly update: Api.TypeUpdate;
  /** Chats the update names, sent along as the account sees them when it asks. */
  readonly chats: readonly ChatRecord[];
}

/** A logged pts-moving event of the store (see pts-log.ts). */
export type StoredPtsEvent = PtsEvent<StoredMessage>;
