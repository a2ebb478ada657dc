/**
 * Server-side records of the emulator: what Telegram's database would hold for chats, messages,
 * mailboxes and sticker sets. Internal to the emulator; tests see `EmuChat` / `EmuMessage`.
 */
import type { Api } from "telegram";
import type { EmuChat } from "./types.js";

/** A sticker the emulator can send (one document of an added sticker set). */
export interface StickerDoc {
  readonly id: number;
  readonly accessHash: number;
  readonly fileReference: Buffer;
  readonly emoji: string;
  readonly set: StickerSetRecord;
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
  /** Supergroups: the channel's pts. */
  pts: number;
  /** Forum topics: root message id → title. */
  readonly topics: Map<number, string>;
  /** Highest message id (in the account's id space) each account marked read. */
  readonly readMax: Map<number, number>;
  /** Unix seconds the chat was created. */
  readonly createdAt: number;
}

/** The service actions the emulator stores. */
export interface ServiceAction {
  readonly action: "channel-create" | "topic-create";
  readonly title: string;
}

/** One message as the server stores it, independent of any viewer. */
export interface StoredMessage {
  /** Global creation order; also the id shown when no account can see the message. */
  readonly serial: number;
  readonly chat: ChatRecord;
  readonly fromId: number;
  readonly text: string;
  readonly entities: readonly Api.TypeMessageEntity[];
  /** Unix time in ms. */
  readonly date: number;
  /** The message this one semantically replies to (not the topic root of a plain topic message). */
  readonly replyTo?: StoredMessage;
  readonly topicId?: number;
  readonly sticker?: StickerDoc;
  /** Set for service messages: the supergroup's creation (id 1) and forum topic roots. */
  readonly service?: ServiceAction;
  /** Supergroups: the channel message id. */
  readonly channelId?: number;
  /** DMs and basic groups: account id → id in that account's mailbox. */
  readonly boxIds: Map<number, number>;
  deleted: boolean;
  /** user id → reaction emoji (one standard reaction per user, like a non-premium account). */
  readonly reactions: Map<number, string>;
}

/** An account's server-side mailbox: the id space it shares across all its DMs and basic groups. */
export interface Mailbox {
  lastId: number;
  readonly byId: Map<number, StoredMessage>;
  pts: number;
  /** random_id values this account already used (Telegram answers RANDOM_ID_DUPLICATE). */
  readonly randomIds: Set<string>;
  readonly blocked: Set<number>;
}
