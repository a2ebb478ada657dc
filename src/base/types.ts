import type { MediaDescriptor } from "./media-descriptor";

/**
 * Platform-neutral domain types shared by the inbound pipeline, context, tasks and store.
 * Only src/telegram/ knows GramJS; everything else speaks these shapes.
 */

/** How Telegram classifies the chat a message arrived in. */
export type ChatType = "dm" | "group" | "supergroup" | "forum";

/** A text entity as Telegram reports it (offsets in UTF-16 code units). */
export interface MessageEntity {
  readonly type: string;
  readonly offset: number;
  readonly length: number;
  /** For mention-name entities: the user id that was mentioned. */
  readonly userId?: string;
}

/**
 * One message as the inbound pipeline sees it. Built from a GramJS message with no API call.
 * `chatId` is Telegram's "marked" peer id as a string (users > 0, basic groups < 0,
 * supergroups -100…), so it is unique per account and safe beyond 2^53.
 */
export interface InboundMessage {
  readonly chatId: string;
  readonly chatType: ChatType;
  readonly chatTitle?: string;
  /** The group's public @username (without @), when it has one. */
  readonly chatUsername?: string;
  readonly messageId: number;
  readonly senderId: string;
  readonly senderName: string;
  readonly senderUsername?: string;
  /** Unix time in milliseconds. */
  readonly date: number;
  readonly text: string;
  readonly entities: readonly MessageEntity[];
  /** Telegram's own flag: an @mention of the account or a reply to one of its messages. */
  readonly mentioned: boolean;
  readonly replyToId?: number;
  /** Telegram's partial quote of the replied-to message (the part the sender selected), when there is one. */
  readonly quoteText?: string;
  /**
   * A reply to a message of *another* chat (the reply header's reply_to_peer_id names another
   * chat, or it carries reply_from): `replyToId` is then absent — the id is not this chat's —
   * and `quoteText` is that message's quoted part, whose author nobody here can vouch for.
   */
  readonly replyElsewhere?: boolean;
  /** A forward (fwd_from): someone else's words, whoever forwarded them. */
  readonly forwarded?: boolean;
  /** Sent through an inline bot (via_bot_id): the bot chose the text. */
  readonly viaBot?: boolean;
  /** Forum topic id (the topic's root message id) when the chat is a forum. */
  readonly topicId?: number;
  /** True for messages the account itself sent. */
  readonly out: boolean;
  readonly senderIsBot: boolean;
  /**
   * The update carried no usable sender (a short update, or a DM partner without an access hash)
   * and the entity store does not know it: name, bot flag and (in a DM) the way to answer are
   * missing until the sender is resolved — which only happens if the persona will answer.
   */
  readonly senderUnknown?: boolean;
  /**
   * Whether the sender is in the account's contact list, as the sender's user object in the
   * update says; undefined when the update carried no user object (e.g. a short DM update).
   */
  readonly senderIsContact?: boolean;
  /**
   * Access hash of the chat's peer (the channel, or the DM partner) as the update carried it.
   * Stored so the chat can be addressed after a restart: GramJS's session forgets its entity cache.
   */
  readonly accessHash?: string;
  /** The message's media (photo, sticker, voice, …) as the update described it; absent for text. */
  readonly media?: MediaDescriptor;
}

/** What the persona learns about the message a message replies to. */
export type ReplyContext =
  | {
      readonly kind: "found";
      readonly id: number;
      readonly text: string;
      readonly senderName: string;
      readonly isAgent: boolean;
      /** The sender's id, when the fetched message named one. */
      readonly senderId?: string;
    }
  | { readonly kind: "deleted"; readonly id: number }
  /** The fetch failed or timed out: the id is kept, no annotation text. */
  | { readonly kind: "unknown"; readonly id: number };

/** Injected time source. Core logic never reads the wall clock directly. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}
