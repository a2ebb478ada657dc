import { Api, utils } from "telegram";
import { renderMedia } from "../../base/media-descriptor";
import type { ChatType, InboundMessage, MessageEntity } from "../../base/types";
import { parseMedia } from "./media-parse";

/** GramJS's custom message (what NewMessage handlers receive). */
export type GramMessage = Api.Message;

type Entityish = {
  className?: string;
  min?: boolean;
  accessHash?: { toString(): string };
  firstName?: string;
  lastName?: string;
  title?: string;
  username?: string;
  bot?: boolean;
  contact?: boolean;
  forum?: boolean;
  megagroup?: boolean;
  broadcast?: boolean;
};

/** "Ann Lee", a title, or "@user" / the id when the entity is unknown. */
export function displayName(e: Entityish | undefined, fallbackId: string): string {
  if (!e) return `user ${fallbackId}`;
  const full = [e.firstName, e.lastName].filter(Boolean).join(" ").trim();
  if (full) return full;
  if (e.title) return e.title;
  if (e.username) return `@${e.username}`;
  return `user ${fallbackId}`;
}

const ENTITY_PREFIX = "MessageEntity";

function entityOf(e: Api.TypeMessageEntity): MessageEntity {
  const type = e.className.startsWith(ENTITY_PREFIX)
    ? e.className.slice(ENTITY_PREFIX.length).toLowerCase()
    : e.className;
  const userId = e instanceof Api.MessageEntityMentionName ? e.userId.toString() : undefined;
  return { type, offset: e.offset, length: e.length, ...(userId ? { userId } : {}) };
}

/**
 * Api.Message → InboundMessage using only what the update carried (no API call): the chat and
 * sender entities GramJS attached from the update's users/chats, the `mentioned` flag as the
 * server set it, and the reply target from GramJS's `replyToMsgId` getter.
 * Returns undefined for messages that are not conversation (service messages, broadcast posts).
 */
export function parseMessage(m: GramMessage): InboundMessage | undefined {
  if (m.className !== "Message") return undefined;
  const peer = m.peerId;
  const chat = m.chat as Entityish | undefined;
  let chatType: ChatType;
  if (peer instanceof Api.PeerUser) chatType = "dm";
  else if (peer instanceof Api.PeerChat) chatType = "group";
  else if (chat?.broadcast) return undefined;
  else chatType = chat?.forum ? "forum" : "supergroup";

  const chatId = utils.getPeerId(peer);
  const senderId = m.senderId?.toString() ?? chatId;
  const sender = m.sender as Entityish | undefined;
  const header = m.replyTo instanceof Api.MessageReplyHeader ? m.replyTo : undefined;

  // A reply into another chat: its id is that chat's, never this one's (TDLib keeps such a
  // reply's chat apart, RepliedMessageInfo). Only the quote, if any, is kept.
  const replyPeer = header?.replyToPeerId ? utils.getPeerId(header.replyToPeerId) : undefined;
  const replyElsewhere =
    header !== undefined &&
    ((replyPeer !== undefined && replyPeer !== utils.getPeerId(peer)) || header.replyFrom != null);
  let replyToId = replyElsewhere ? undefined : (m.replyToMsgId ?? undefined);
  let topicId: number | undefined;
  if (chatType === "forum") {
    if (header?.forumTopic) {
      // In a topic, a plain message "replies" to the topic root; a real reply also carries replyToTopId.
      topicId = header.replyToTopId ?? header.replyToMsgId;
      if (header.replyToTopId == null) replyToId = undefined;
    } else {
      topicId = 1; // the General topic
    }
  }
  // Only a message with media pays for its descriptor; its text is the caption, else the plain placeholder.
  const media = m.media ? parseMedia(m) : undefined;
  const text = m.message || (media ? renderMedia(media) : "");
  // Telegram's partial quote: the part of the replied-to message the sender selected.
  const quoteText = header?.quote && header.quoteText ? header.quoteText : undefined;
  // Short updates carry no user objects; a min user has no access hash to answer a DM with.
  const senderUnknown = !sender || (chatType === "dm" && (sender.min === true || sender.accessHash == null));
  return {
    chatId,
    chatType,
    ...(chatType !== "dm" && chat?.title ? { chatTitle: chat.title } : {}),
    chatUsername: chatType !== "dm" && chat?.username ? chat.username : undefined,
    messageId: m.id,
    senderId,
    senderName: displayName(sender, senderId),
    ...(sender?.username ? { senderUsername: sender.username } : {}),
    date: m.date * 1000,
    text,
    entities: (m.entities ?? []).map(entityOf),
    mentioned: Boolean(m.mentioned),
    ...(replyToId !== undefined ? { replyToId } : {}),
    ...(quoteText !== undefined ? { quoteText } : {}),
    ...(replyElsewhere ? { replyElsewhere } : {}),
    ...(m.fwdFrom ? { forwarded: true } : {}),
    // (GramJS's message keeps via_bot_id; it drops via_business_bot_id, which never reaches us.)
    ...(m.viaBotId != null ? { viaBot: true } : {}),
    ...(topicId !== undefined ? { topicId } : {}),
    out: Boolean(m.out),
    senderIsBot: Boolean(sender?.bot),
    ...(senderUnknown ? { senderUnknown } : {}),
    // Only a user object says whether the sender is a contact; without one it is unknown.
    senderIsContact: sender?.className === "User" ? Boolean(sender.contact) : undefined,
    ...(media ? { media } : {}),
    ...(chatType !== "group" && chat?.accessHash != null && !chat.min
      ? { accessHash: chat.accessHash.toString() }
      : {}),
  };
}

/** A forum topic's title as one of its service messages gives it. */
export interface TopicTitle {
  readonly chatId: string;
  readonly topicId: number;
  readonly title: string;
  /** The service message's id (the newest one names the topic). */
  readonly messageId: number;
}

/**
 * The title a forum topic's service message gives it: messageActionTopicCreate (the topic's root;
 * its id is the topic id) or messageActionTopicEdit with a title (a rename, posted inside the
 * topic: General when it carries no topic header). Undefined for any other service message.
 */
export function parseTopicTitle(m: Api.MessageService): TopicTitle | undefined {
  const a = m.action;
  let topicId: number;
  let title: string;
  if (a instanceof Api.MessageActionTopicCreate) {
    topicId = m.id;
    title = a.title;
  } else if (a instanceof Api.MessageActionTopicEdit && a.title != null) {
    topicId = topicOfEdit(m);
    title = a.title;
  } else return undefined;
  return { chatId: utils.getPeerId(m.peerId), topicId, title, messageId: m.id };
}

/** A forum topic closed or reopened by an admin (messageActionTopicEdit {closed}). */
export interface TopicClosure {
  readonly chatId: string;
  readonly topicId: number;
  readonly closed: boolean;
  readonly messageId: number;
}

/** The closing or reopening a topic-edit service message says (posted inside the topic), else undefined. */
export function parseTopicClosure(m: Api.MessageService): TopicClosure | undefined {
  const a = m.action;
  if (!(a instanceof Api.MessageActionTopicEdit) || a.closed === undefined || a.closed === null)
    return undefined;
  return {
    chatId: utils.getPeerId(m.peerId),
    topicId: topicOfEdit(m),
    closed: Boolean(a.closed),
    messageId: m.id,
  };
}

/** The topic a topic-edit service message is posted in (General, 1, when it carries no topic header). */
function topicOfEdit(m: Api.MessageService): number {
  const h = m.replyTo instanceof Api.MessageReplyHeader ? m.replyTo : undefined;
  return h?.forumTopic ? (h.replyToTopId ?? h.replyToMsgId ?? 1) : 1;
}

/** A basic group upgraded to a supergroup: the old chat's marked id and the supergroup's. */
export interface ChatMove {
  readonly from: string;
  readonly to: string;
}

/**
 * The move a migrate service message names: messageActionChatMigrateTo {channel_id} in the old
 * group, messageActionChannelMigrateFrom {chat_id} in the new supergroup (docs/telegram-facts.md).
 * Undefined for any other service message.
 */
export function parseChatMove(m: Api.MessageService): ChatMove | undefined {
  const a = m.action;
  if (a instanceof Api.MessageActionChatMigrateTo)
    return { from: utils.getPeerId(m.peerId), to: `-100${a.channelId.toString()}` };
  if (a instanceof Api.MessageActionChannelMigrateFrom)
    return { from: `-${a.chatId.toString()}`, to: utils.getPeerId(m.peerId) };
  return undefined;
}
