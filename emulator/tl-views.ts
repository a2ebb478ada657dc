/**
 * TL objects as one account sees the server state: users, chats, peers and messages.
 *
 * Everything here is per viewer because Telegram's answers are: `out`, `mentioned`, DM peers
 * and (for DMs and basic groups) message ids all depend on which account asks.
 */
import { Api } from "telegram";
import { rightsView } from "./chat-rights";
import { toLong } from "./long";
import { messageMedia, stickerDocument } from "./media-views";
import { webPageMedia } from "./web-pages";
import { mentionsUser } from "./mentions";
import { presenceOf, statusTl } from "./presence";
import { reactionsOf } from "./message-reactions";
import type { ChatRecord, StickerDoc, StoredMessage } from "./stored-message";
import type { EmuUser } from "./types";
import type { World } from "./world";

/** Users and chats a result must carry so GramJS can cache them and resolve senders. */
export interface EntityBag {
  readonly users: Api.TypeUser[];
  readonly chats: Api.TypeChat[];
}

/** Builds per-viewer TL objects; caches the immutable user objects (hot path of delivery). */
export class TlViews {
  private readonly userCache = new Map<number, Api.User>();
  private readonly selfCache = new Map<number, Api.User>();
  private readonly minCache = new Map<number, Api.User>();
  /** Users as one account sees its contacts (`contact: true`), per viewer. */
  private readonly contactCache = new Map<number, Map<number, Api.User>>();

  constructor(
    private readonly world: World,
    private readonly now: () => number = Date.now,
  ) {}

  /** The full user as `viewerId` sees it (which makes the user "known" to that account). */
  user(u: EmuUser, viewerId: number): Api.User {
    this.world.markKnown(viewerId, u.id);
    // A deleted account: Telegram shows "Deleted Account" — the flag, no names, no status.
    if (this.world.deletedUsers.has(u.id))
      return new Api.User({ id: toLong(u.id), accessHash: toLong(u.accessHash), deleted: true });
    const self = u.id === viewerId;
    const contact = !self && this.world.isContact(viewerId, u.id);
    let cache = self ? this.selfCache : this.userCache;
    if (contact) {
      cache = this.contactCache.get(viewerId) ?? new Map<number, Api.User>();
      this.contactCache.set(viewerId, cache);
    }
    // A user who said whether it is online shows that (never cached: it changes with time).
    const shown = self ? undefined : this.presence(u.id);
    if (shown) return new Api.User({ ...this.userFields(u, self, contact), status: shown });
    const hit = cache.get(u.id);
    if (hit) return hit;
    const built = new Api.User({
      ...this.userFields(u, self, contact),
      status: new Api.UserStatusRecently({}),
    });
    cache.set(u.id, built);
    return built;
  }

  private userFields(u: EmuUser, self: boolean, contact: boolean) {
    return {
      id: toLong(u.id),
      accessHash: toLong(u.accessHash),
      firstName: u.firstName,
      ...(u.lastName !== undefined ? { lastName: u.lastName } : {}),
      ...(u.username !== undefined ? { username: u.username } : {}),
      bot: u.bot,
      // bot and bot_info_version share flag 14: a bot without a version is not valid TL.
      ...(u.bot ? { botInfoVersion: 1 } : {}),
      self,
      ...(contact ? { contact: true } : {}),
    };
  }

  /** The status of a user who sent one (presence.ts), else undefined. */
  private presence(userId: number): Api.TypeUserStatus | undefined {
    if (!this.world.latestStatus.has(userId)) return undefined;
    return statusTl(presenceOf(this.world, userId, this.now()));
  }

  /**
   * A `min` user: what Telegram sends in a supergroup for a user the account never resolved —
   * names, no access hash, so GramJS cannot address it (it caches nothing for min users).
   */
  minUser(u: EmuUser): Api.User {
    const hit = this.minCache.get(u.id);
    if (hit) return hit;
    const built = new Api.User({
      id: toLong(u.id),
      min: true,
      firstName: u.firstName,
      ...(u.lastName !== undefined ? { lastName: u.lastName } : {}),
      ...(u.username !== undefined ? { username: u.username } : {}),
      bot: u.bot,
      ...(u.bot ? { botInfoVersion: 1 } : {}),
    });
    this.minCache.set(u.id, built);
    return built;
  }

  /** The chat entity of a group or supergroup (DMs have none: the peer is a user). */
  chat(rec: ChatRecord, viewerId?: number): Api.TypeChat | undefined {
    const c = rec.chat;
    // Who may send what there (chat-rights.ts): the default bans, the viewer's own, slow mode.
    const rights = rightsView(rec, viewerId, this.now());
    if (c.kind === "group") {
      return new Api.Chat({
        id: toLong(c.id),
        title: c.title ?? "",
        photo: new Api.ChatPhotoEmpty(),
        participantsCount: rec.members.size,
        date: rec.createdAt,
        version: 1,
        ...(rights.defaultBannedRights ? { defaultBannedRights: rights.defaultBannedRights } : {}),
        ...(rights.adminRights ? { adminRights: rights.adminRights } : {}),
        // Upgraded to a supergroup: Telegram deactivates it and names its successor.
        ...(rec.migratedTo
          ? {
              deactivated: true,
              migratedTo: new Api.InputChannel({
                channelId: toLong(rec.migratedTo.chat.id),
                accessHash: toLong(rec.migratedTo.chat.accessHash),
              }),
            }
          : {}),
      });
    }
    if (c.kind === "supergroup") {
      return new Api.Channel({
        id: toLong(c.id),
        accessHash: toLong(c.accessHash),
        title: c.title ?? "",
        photo: new Api.ChatPhotoEmpty(),
        date: rec.createdAt,
        ...(c.broadcast ? { broadcast: true } : { megagroup: true }),
        forum: c.forum,
        participantsCount: rec.members.size,
        ...rights,
      });
    }
    return undefined;
  }

  /**
   * The chat as `viewerId` sees it: a supergroup the viewer is not in is ChannelForbidden when an
   * admin removed it (banned), else the channel with `left` set (left, or never joined).
   */
  chatFor(rec: ChatRecord, viewerId: number): Api.TypeChat | undefined {
    const c = rec.chat;
    // A basic group the viewer was removed from (or left): chatForbidden, its title only.
    if (c.kind === "group" && !rec.members.has(viewerId))
      return new Api.ChatForbidden({ id: toLong(c.id), title: c.title ?? "" });
    if (c.kind !== "supergroup" || rec.members.has(viewerId)) return this.chat(rec, viewerId);
    if (rec.banned.has(viewerId)) {
      return new Api.ChannelForbidden({
        id: toLong(c.id),
        accessHash: toLong(c.accessHash),
        title: c.title ?? "",
        ...(c.broadcast ? { broadcast: true } : { megagroup: true }),
      });
    }
    const channel = this.chat(rec) as Api.Channel;
    channel.left = true;
    return channel;
  }

  /** The chat's peer as `viewerId` sees it (for a DM: the other participant). */
  peer(rec: ChatRecord, viewerId: number): Api.TypePeer {
    const c = rec.chat;
    if (c.kind === "group") return new Api.PeerChat({ chatId: toLong(c.id) });
    if (c.kind === "supergroup") return new Api.PeerChannel({ channelId: toLong(c.id) });
    return new Api.PeerUser({ userId: toLong(this.world.dmPeerOf(rec, viewerId)) });
  }

  /** A stored message as `viewer` sees it; MessageEmpty when deleted or outside its view. */
  message(msg: StoredMessage, viewer: EmuUser, requestedId?: number): Api.TypeMessage {
    const id = this.world.idFor(msg, viewer.id);
    if (msg.deleted || id === undefined) return new Api.MessageEmpty({ id: requestedId ?? id ?? 0 });
    const peerId = this.peer(msg.chat, viewer.id);
    const out = msg.fromId === viewer.id;
    const date = Math.floor(msg.date / 1000);
    const replyTo = this.replyHeader(msg, viewer.id);
    const fromId = msg.senderChat
      ? new Api.PeerChannel({ channelId: toLong(msg.senderChat.chat.id) })
      : new Api.PeerUser({ userId: toLong(msg.fromId) });
    if (msg.service) {
      return new Api.MessageService({
        id,
        out,
        fromId: new Api.PeerUser({ userId: toLong(msg.fromId) }),
        peerId,
        date,
        // A rename is posted inside its topic (reply header like a plain topic message).
        ...(replyTo ? { replyTo } : {}),
        action: serviceAction(msg.service),
      });
    }
    // Telegram's flag: an @mention of the account, or a reply to one of its messages.
    const mentioned =
      !out &&
      (msg.replyTo?.fromId === viewer.id || mentionsUser(msg.text, msg.entities, viewer.id, viewer.username));
    return new Api.Message({
      id,
      out,
      mentioned,
      fromId,
      peerId,
      date,
      message: msg.text,
      ...(msg.forwardOf ? { fwdFrom: this.forwardHeader(msg.forwardOf, msg, viewer.id) } : {}),
      ...(msg.viaBotId !== undefined ? { viaBotId: toLong(msg.viaBotId) } : {}),
      ...(msg.editDate !== undefined ? { editDate: Math.floor(msg.editDate / 1000) } : {}),
      ...(replyTo ? { replyTo } : {}),
      ...(msg.entities.length > 0 ? { entities: [...msg.entities] } : {}),
      ...(msg.sticker ? { media: this.stickerMedia(msg.sticker) } : {}),
      ...(msg.reactions.size > 0 ? { reactions: reactionsOf(msg, viewer.id) } : {}),
      ...(msg.media ? { media: messageMedia(msg.media) } : {}),
      ...(msg.webPage && !msg.media && !msg.sticker ? { media: webPageMedia(msg.webPage) } : {}),
      ...(msg.groupedId !== undefined ? { groupedId: toLong(msg.groupedId) } : {}),
    });
  }

  /**
   * Telegram's reply header: a reply gets `replyToMsgId`; inside a forum topic `forumTopic` is set,
   * a plain topic message "replies" to the topic root and a real reply carries `replyToTopId`.
   */
  replyHeader(msg: StoredMessage, viewerId: number): Api.MessageReplyHeader | undefined {
    if (msg.replyElsewhere)
      return this.elsewhereHeader(msg, msg.replyElsewhere.msg, msg.replyElsewhere.quote);
    const target = msg.replyTo ? this.world.idFor(msg.replyTo, viewerId) : undefined;
    const quote =
      target !== undefined && msg.quote
        ? { quote: true, quoteText: msg.quote.text, quoteOffset: msg.quote.offset }
        : {};
    if (msg.topicId !== undefined) {
      return new Api.MessageReplyHeader({
        forumTopic: true,
        replyToMsgId: target ?? msg.topicId,
        ...(target !== undefined ? { replyToTopId: msg.topicId } : {}),
        ...quote,
      });
    }
    return target !== undefined ? new Api.MessageReplyHeader({ replyToMsgId: target, ...quote }) : undefined;
  }

  /**
   * A reply to a message of another chat: its id there (as the sender sees it), that chat as
   * `reply_to_peer_id`, the original's sender and date in `reply_from`, and the quote.
   */
  private elsewhereHeader(
    msg: StoredMessage,
    target: StoredMessage,
    quote: { readonly text: string; readonly offset: number } | undefined,
  ): Api.MessageReplyHeader {
    return new Api.MessageReplyHeader({
      replyToMsgId: this.world.idFor(target, msg.fromId) ?? target.serial,
      replyToPeerId: this.peer(target.chat, msg.fromId),
      replyFrom: new Api.MessageFwdHeader({
        fromId: new Api.PeerUser({ userId: toLong(target.fromId) }),
        date: Math.floor(target.date / 1000),
      }),
      ...(quote ? { quote: true, quoteText: quote.text, quoteOffset: quote.offset } : {}),
    });
  }

  /**
   * `fwd_from` of a forward as `viewerId` sees `msg`: a linked channel's automatic forward names
   * the channel and its post; a user's forward names the original's sender and date, and when it
   * was forwarded into Saved Messages also the chat and message it was saved from.
   */
  forwardHeader(post: StoredMessage, msg: StoredMessage, viewerId: number): Api.MessageFwdHeader {
    if (!post.senderChat) {
      const saved = msg.chat.chat.kind === "dm" && msg.chat.members.size === 1;
      const savedFromMsgId = saved ? this.world.idFor(post, viewerId) : undefined;
      return new Api.MessageFwdHeader({
        fromId: new Api.PeerUser({ userId: toLong(post.fromId) }),
        date: Math.floor(post.date / 1000),
        ...(savedFromMsgId !== undefined
          ? { savedFromPeer: this.peer(post.chat, viewerId), savedFromMsgId }
          : {}),
      });
    }
    const channel = new Api.PeerChannel({ channelId: toLong(post.chat.chat.id) });
    return new Api.MessageFwdHeader({
      fromId: channel,
      date: Math.floor(post.date / 1000),
      ...(post.channelId !== undefined
        ? { channelPost: post.channelId, savedFromMsgId: post.channelId }
        : {}),
      savedFromPeer: channel,
    });
  }

  stickerMedia(doc: StickerDoc): Api.MessageMediaDocument {
    return new Api.MessageMediaDocument({ document: this.document(doc) });
  }

  document(doc: StickerDoc): Api.Document {
    return stickerDocument(doc);
  }

  /**
   * A dialog-list entry for `rec` as `viewer` sees it: its top message, read marks, unread count
   * and, for channels, the channel's pts.
   */
  dialog(rec: ChatRecord, viewer: EmuUser): Api.Dialog {
    const visible = this.world.visibleMessages(rec, viewer.id);
    const top = visible.at(-1);
    const readInbox = rec.readMax.get(viewer.id) ?? 0;
    let unread = 0;
    for (const m of visible) {
      if (m.fromId !== viewer.id && !m.service && (this.world.idFor(m, viewer.id) ?? 0) > readInbox) unread++;
    }
    return new Api.Dialog({
      peer: this.peer(rec, viewer.id),
      topMessage: top ? (this.world.idFor(top, viewer.id) ?? 0) : 0,
      readInboxMaxId: readInbox,
      readOutboxMaxId: rec.readOutbox.get(viewer.id) ?? 0,
      unreadCount: unread,
      unreadMentionsCount: 0,
      unreadReactionsCount: 0,
      notifySettings: new Api.PeerNotifySettings({}),
      ...(rec.chat.kind === "supergroup" ? { pts: rec.pts.pts } : {}),
    });
  }

  /** Users and chats referenced by `messages` (senders, DM peers, chats) plus the viewer itself. */
  entitiesFor(
    messages: readonly StoredMessage[],
    viewer: EmuUser,
    extraChats: readonly ChatRecord[] = [],
    /** Users the viewer never received in full go out as `min` users (supergroup pushes). */
    minForUnknown = false,
  ): EntityBag {
    const userIds = new Set<number>([viewer.id]);
    const chatRecs = new Set<ChatRecord>(extraChats);
    for (const m of messages) {
      // A message sent as a chat reveals the chat, not the user behind it.
      if (m.senderChat) chatRecs.add(m.senderChat);
      else userIds.add(m.fromId);
      chatRecs.add(m.chat);
      // The inline bot it came through, and whom a forward or a reply elsewhere names.
      if (m.viaBotId !== undefined) userIds.add(m.viaBotId);
      for (const o of [m.forwardOf, m.replyElsewhere?.msg]) if (o && !o.senderChat) userIds.add(o.fromId);
    }
    const chats: Api.TypeChat[] = [];
    for (const rec of chatRecs) {
      if (rec.chat.kind === "dm") userIds.add(this.world.dmPeerOf(rec, viewer.id));
      const c = this.chatFor(rec, viewer.id);
      if (c) chats.push(c);
    }
    const users: Api.TypeUser[] = [];
    for (const id of userIds) {
      const u = this.world.user(id);
      if (!u) continue;
      users.push(
        minForUnknown && !this.world.knows(viewer.id, id) ? this.minUser(u) : this.user(u, viewer.id),
      );
    }
    return { users, chats };
  }
}

/** The TL action of a stored service message. */
function serviceAction(s: NonNullable<StoredMessage["service"]>): Api.TypeMessageAction {
  switch (s.action) {
    case "topic-create":
      return new Api.MessageActionTopicCreate({ title: s.title, iconColor: 0x6fb9f0 });
    case "topic-edit":
      return s.closed !== undefined
        ? new Api.MessageActionTopicEdit({ closed: s.closed })
        : new Api.MessageActionTopicEdit({ title: s.title });
    case "chat-migrate-to":
      return new Api.MessageActionChatMigrateTo({ channelId: toLong(s.peer ?? 0) });
    case "channel-migrate-from":
      return new Api.MessageActionChannelMigrateFrom({ title: s.title, chatId: toLong(s.peer ?? 0) });
    case "chat-delete-user":
      return new Api.MessageActionChatDeleteUser({ userId: toLong(s.userId ?? 0) });
    default:
      return new Api.MessageActionChannelCreate({ title: s.title });
  }
}
