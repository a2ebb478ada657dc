/**
 * The emulator's server state: users, chats, messages and the per-account id spaces.
 *
 * Telegram's id rules, which this models because reply resolution depends on them:
 * - a supergroup (channel) has one message id sequence shared by every member;
 * - DMs and basic groups have no chat-wide ids: every account has one mailbox counter across all
 *   its non-channel chats, and a basic-group message gets a separate id in each member account's
 *   mailbox. Simulated users are never clients, so they need no mailbox.
 */
import { WebPageRegistry, type WebPageRecord } from "./web-pages";
import { accessHashFor } from "./access-hash";
import { PtsLog } from "./pts-log";
import { FileStore } from "./file-store";
import { StickerCatalog } from "./sticker-catalog";
import type { ChatRecord, Mailbox, StoredMessage, StoredPtsEvent } from "./stored-message";
import type { EmuChat, EmuMessage, EmuUser, StatusRecord, TypingRecord } from "./types";

/** What a new message needs; ids, reactions and the deleted flag are the server's (`storeMessage`). */
export type NewMessageInput = Omit<
  StoredMessage,
  "serial" | "channelId" | "boxIds" | "deleted" | "reactions" | "channelPts" | "boxPts" | "editDate"
>;

// Id ranges that look like Telegram's and stay far below 2^40.
const FIRST_USER_ID = 5_000_000_001;
const FIRST_GROUP_ID = 4_000_001;
const FIRST_CHANNEL_ID = 1_500_000_001;

/** Server state shared by every attached client. */
export class World {
  private readonly users = new Map<number, EmuUser>();
  private readonly usernames = new Map<string, EmuUser>();
  private readonly chats = new Map<EmuChat, ChatRecord>();
  private readonly groups = new Map<number, ChatRecord>();
  private readonly channels = new Map<number, ChatRecord>();
  private readonly dms = new Map<string, ChatRecord>();
  private readonly mailboxes = new Map<number, Mailbox>();
  /** Accounts in the order they were first attached; `attached` holds the current ones. */
  private readonly attachOrder: number[] = [];
  private readonly attached = new Set<number>();
  /** Every chat action accounts reported, in order. */
  readonly typing: TypingRecord[] = [];
  /** Every `account.updateStatus` accounts sent, in order (presence.ts reads the latest per account). */
  readonly statuses: StatusRecord[] = [];
  /** The latest of them per account. */
  readonly latestStatus = new Map<number, StatusRecord>();
  /** Sticker sets added with `addStickerSet`. */
  /** Every stored file (photos, documents, sticker files) with its current file reference. */
  readonly files = new FileStore();
  readonly stickers = new StickerCatalog(this.files);
  /** Pages the server has link previews for (web-pages.ts). */
  readonly webPages = new WebPageRegistry(() => this.now());
  private nextUserId = FIRST_USER_ID;
  private nextGroupId = FIRST_GROUP_ID;
  private nextChannelId = FIRST_CHANNEL_ID;
  private nextSerial = 1;

  /** Told each time a channel's pts moves (see channel-news.ts); set by the emulator. */
  onChannelEvent: (rec: ChatRecord) => void = () => undefined;

  /** @param now wall time in ms (message dates, chat creation dates). */
  constructor(private readonly now: () => number) {}

  // ---- users -----------------------------------------------------------------------------

  /** Registers a user; accounts also get a mailbox. */
  addUser(
    u: { firstName: string; lastName?: string; username?: string; bot?: boolean },
    isAccount: boolean,
  ): EmuUser {
    if (u.username !== undefined && this.usernames.has(u.username.toLowerCase())) {
      throw new Error(`emulator: username @${u.username} is taken`);
    }
    const id = this.nextUserId++;
    const user: EmuUser = Object.freeze({
      id,
      firstName: u.firstName,
      ...(u.lastName !== undefined ? { lastName: u.lastName } : {}),
      ...(u.username !== undefined ? { username: u.username } : {}),
      bot: u.bot ?? false,
      isAccount,
      accessHash: accessHashFor(id, 1),
    });
    this.users.set(id, user);
    if (u.username !== undefined) this.usernames.set(u.username.toLowerCase(), user);
    if (isAccount) {
      this.mailboxes.set(id, {
        lastId: 0,
        byId: new Map(),
        pts: new PtsLog<StoredMessage>(),
        qts: 0,
        seq: 0,
        knownUsers: new Set([id]),
        randomIds: new Map(),
        blocked: new Set(),
        contacts: new Set(),
        offline: [],
        channelNews: new Set(),
      });
    }
    return user;
  }

  user(id: number): EmuUser | undefined {
    return this.users.get(id);
  }

  /** Users whose account was deleted (`deleteAccount`): their User objects carry `deleted`. */
  readonly deletedUsers = new Set<number>();

  userByUsername(username: string): EmuUser | undefined {
    return this.usernames.get(username.toLowerCase());
  }

  /** Records that account `viewerId` received `userId` as a full user (no-op for non-accounts). */
  markKnown(viewerId: number, userId: number): void {
    this.mailboxes.get(viewerId)?.knownUsers.add(userId);
  }

  /** True when account `viewerId` has received `userId` as a full user. */
  knows(viewerId: number, userId: number): boolean {
    return this.mailboxes.get(viewerId)?.knownUsers.has(userId) ?? false;
  }

  /** Accounts that have `userId` in their contact list. */
  contactsOf(userId: number): EmuUser[] {
    const out: EmuUser[] = [];
    for (const [id, box] of this.mailboxes) {
      const u = this.users.get(id);
      if (u && box.contacts.has(userId)) out.push(u);
    }
    return out;
  }

  /** True when `userId` is in the contact list of `viewerId` (false for simulated viewers). */
  isContact(viewerId: number, userId: number): boolean {
    return this.mailboxes.get(viewerId)?.contacts.has(userId) ?? false;
  }

  /** The mailbox of an account (throws for simulated users: they never run a client). */
  mailbox(accountId: number): Mailbox {
    const box = this.mailboxes.get(accountId);
    if (!box) throw new Error(`emulator: user ${accountId} is not an account`);
    return box;
  }

  // ---- chats -----------------------------------------------------------------------------

  createGroup(title: string, members: readonly EmuUser[]): EmuChat {
    const id = this.nextGroupId++;
    const chat: EmuChat = Object.freeze({
      kind: "group",
      id,
      peerId: `-${id}`,
      title,
      forum: false,
      accessHash: 0,
    });
    this.groups.set(id, this.register(chat, members));
    return chat;
  }

  createSupergroup(title: string, members: readonly EmuUser[], forum: boolean, broadcast = false): EmuChat {
    const id = this.nextChannelId++;
    const chat: EmuChat = Object.freeze({
      kind: "supergroup",
      id,
      peerId: `-100${id}`,
      title,
      forum,
      accessHash: accessHashFor(id, 2),
      ...(broadcast ? { broadcast: true } : {}),
    });
    const rec = this.register(chat, members);
    this.channels.set(id, rec);
    // Like Telegram, message 1 of a supergroup is its creation service message (which is also
    // why a forum's "General" topic has id 1).
    this.storeMessage({
      chat: rec,
      fromId: members[0]?.id ?? 0,
      text: "",
      entities: [],
      date: this.now(),
      service: { action: "channel-create", title },
    });
    return chat;
  }

  /** Creates a forum topic; its id is the id of its service root message. */
  createTopic(chat: EmuChat, title: string, creatorId: number): number {
    const rec = this.record(chat);
    if (chat.kind !== "supergroup" || !chat.forum) throw new Error(`emulator: ${chat.peerId} is not a forum`);
    const root = this.storeMessage({
      chat: rec,
      fromId: creatorId,
      text: "",
      entities: [],
      date: this.now(),
      service: { action: "topic-create", title },
    });
    const id = root.channelId ?? 0;
    rec.topics.set(id, title);
    return id;
  }

  /** Renames a forum topic: a topic-edit service message inside the topic (returned). */
  renameTopic(chat: EmuChat, topicId: number, title: string, editorId: number): StoredMessage {
    const rec = this.record(chat);
    if (!rec.topics.has(topicId)) throw new Error(`emulator: no topic ${topicId} in ${chat.peerId}`);
    const msg = this.storeMessage({
      chat: rec,
      fromId: editorId,
      text: "",
      entities: [],
      date: this.now(),
      topicId,
      service: { action: "topic-edit", title },
    });
    rec.topics.set(topicId, title);
    return msg;
  }

  /** Closes or reopens a forum topic (General is 1): a topic-edit service message {closed} inside it. */
  closeTopic(chat: EmuChat, topicId: number, closed: boolean, editorId: number): StoredMessage {
    const rec = this.record(chat);
    if (!(topicId === 1 && chat.forum) && !rec.topics.has(topicId))
      throw new Error(`emulator: no topic ${topicId} in ${chat.peerId}`);
    return this.storeMessage({
      chat: rec,
      fromId: editorId,
      text: "",
      entities: [],
      date: this.now(),
      ...(topicId !== 1 ? { topicId } : {}),
      service: { action: "topic-edit", title: rec.topics.get(topicId) ?? "", closed },
    });
  }

  /** The DM between two users (the same record whichever order they are given in). */
  dm(a: EmuUser, b: EmuUser): EmuChat {
    return this.dmRecord(a, b).chat;
  }

  dmRecord(a: EmuUser, b: EmuUser): ChatRecord {
    const key = a.id < b.id ? `${a.id}:${b.id}` : `${b.id}:${a.id}`;
    const existing = this.dms.get(key);
    if (existing) return existing;
    // The record's peerId is the chat as the account side sees it: the other participant.
    const peer = a.isAccount || !b.isAccount ? b : a;
    const chat: EmuChat = Object.freeze({
      kind: "dm",
      id: peer.id,
      peerId: String(peer.id),
      forum: false,
      accessHash: peer.accessHash,
    });
    const record = this.register(chat, [a, b]);
    this.dms.set(key, record);
    return record;
  }

  /** Server record of a chat created by this world. */
  record(chat: EmuChat): ChatRecord {
    const rec = this.chats.get(chat);
    if (!rec) throw new Error(`emulator: unknown chat ${chat.peerId}`);
    return rec;
  }

  group(id: number): ChatRecord | undefined {
    return this.groups.get(id);
  }

  channel(id: number): ChatRecord | undefined {
    return this.channels.get(id);
  }

  /** The DM participant `viewerId` talks to (itself for the self chat). */
  dmPeerOf(rec: ChatRecord, viewerId: number): number {
    for (const id of rec.members) if (id !== viewerId) return id;
    return viewerId;
  }

  /** Every chat `userId` is a member of (DMs included). */
  /** Every stored message that shows link preview `page`, by chat (deleted ones left out). */
  messagesWithPage(page: WebPageRecord): Map<ChatRecord, StoredMessage[]> {
    const out = new Map<ChatRecord, StoredMessage[]>();
    for (const rec of this.chats.values())
      for (const m of rec.messages)
        if (m.webPage === page && !m.deleted) out.set(rec, [...(out.get(rec) ?? []), m]);
    return out;
  }

  chatsOf(userId: number): ChatRecord[] {
    return [...this.chats.values()].filter((rec) => rec.members.has(userId));
  }

  /** Account members of a chat, in creation order. */
  memberAccounts(rec: ChatRecord): EmuUser[] {
    const out: EmuUser[] = [];
    for (const id of rec.members) {
      const u = this.users.get(id);
      if (u?.isAccount) out.push(u);
    }
    return out;
  }

  private register(chat: EmuChat, members: readonly EmuUser[]): ChatRecord {
    const rec: ChatRecord = {
      chat,
      members: new Set(members.map((m) => m.id)),
      reactions: { kind: "all" },
      messages: [],
      byChannelId: new Map(),
      lastChannelId: 0,
      pts: new PtsLog<StoredMessage>(),
      topics: new Map(),
      readMax: new Map(),
      readOutbox: new Map(),
      banned: new Set(),
      joinedPts: new Map(),
      createdAt: Math.floor(this.now() / 1000),
    };
    this.chats.set(chat, rec);
    return rec;
  }

  // ---- attachment order (decides whose ids the facade speaks in) --------------------------

  markAttached(accountId: number): void {
    if (!this.attachOrder.includes(accountId)) this.attachOrder.push(accountId);
    this.attached.add(accountId);
  }

  markDetached(accountId: number): void {
    this.attached.delete(accountId);
  }

  /**
   * The account whose ids the emulator's own API speaks for a chat: the first currently attached
   * member account, else the first member account ever attached, else the first member account.
   * Undefined when no account is a member (then ids are the message serials).
   */
  referenceViewer(rec: ChatRecord): EmuUser | undefined {
    for (const id of this.attachOrder)
      if (this.attached.has(id) && rec.members.has(id)) return this.users.get(id);
    for (const id of this.attachOrder) if (rec.members.has(id)) return this.users.get(id);
    return this.memberAccounts(rec)[0];
  }

  // ---- messages --------------------------------------------------------------------------

  /** Stores a message and allocates its id(s): one channel id, or one id per member account. */
  storeMessage(input: NewMessageInput): StoredMessage {
    const rec = input.chat;
    const isChannel = rec.chat.kind === "supergroup";
    const msg: StoredMessage = {
      serial: this.nextSerial++,
      chat: rec,
      fromId: input.fromId,
      text: input.text,
      entities: input.entities,
      date: input.date,
      ...(input.replyTo ? { replyTo: input.replyTo } : {}),
      ...(input.quote ? { quote: input.quote } : {}),
      ...(input.topicId !== undefined ? { topicId: input.topicId } : {}),
      ...(input.sticker ? { sticker: input.sticker } : {}),
      ...(input.media ? { media: input.media } : {}),
      ...(input.webPage ? { webPage: input.webPage } : {}),
      ...(input.groupedId !== undefined ? { groupedId: input.groupedId } : {}),
      ...(input.service ? { service: input.service } : {}),
      ...(input.senderChat ? { senderChat: input.senderChat } : {}),
      ...(input.forwardOf ? { forwardOf: input.forwardOf } : {}),
      ...(input.viaBotId !== undefined ? { viaBotId: input.viaBotId } : {}),
      ...(input.replyElsewhere ? { replyElsewhere: input.replyElsewhere } : {}),
      ...(isChannel ? { channelId: ++rec.lastChannelId } : {}),
      boxIds: new Map(),
      boxPts: new Map(),
      deleted: false,
      reactions: new Map(),
    };
    const date = Math.floor(input.date / 1000);
    if (isChannel) {
      rec.byChannelId.set(msg.channelId ?? 0, msg);
      msg.channelPts = rec.pts.push(1, date, { msg }).pts;
      this.onChannelEvent(rec);
    } else {
      for (const memberId of rec.members) {
        const box = this.mailboxes.get(memberId);
        if (!box) continue;
        // A DM from a user the account blocked never reaches that account.
        if (rec.chat.kind === "dm" && memberId !== input.fromId && box.blocked.has(input.fromId)) continue;
        const id = ++box.lastId;
        box.byId.set(id, msg);
        msg.boxIds.set(memberId, id);
        msg.boxPts.set(memberId, box.pts.push(1, date, { msg }).pts);
      }
    }
    rec.messages.push(msg);
    return msg;
  }

  /**
   * Moves an account's pts for something other than a new message (a read, an edit, a deletion):
   * `build` makes the update a client receives, now or later through getDifference.
   */
  advanceAccountPts(
    accountId: number,
    ptsCount: number,
    dateMs: number,
    build: NonNullable<StoredPtsEvent["build"]>,
  ): StoredPtsEvent {
    return this.mailbox(accountId).pts.push(ptsCount, Math.floor(dateMs / 1000), { build });
  }

  /** Moves a channel's pts for something other than a new message (see `advanceAccountPts`). */
  advanceChannelPts(
    rec: ChatRecord,
    ptsCount: number,
    dateMs: number,
    build: NonNullable<StoredPtsEvent["build"]>,
  ): StoredPtsEvent {
    if (rec.chat.kind !== "supergroup") throw new Error(`emulator: ${rec.chat.peerId} has no channel pts`);
    const ev = rec.pts.push(ptsCount, Math.floor(dateMs / 1000), { build });
    this.onChannelEvent(rec);
    return ev;
  }

  /** The pts the new-message update of `msg` carries for `viewerId` (undefined: not in its view). */
  ptsFor(msg: StoredMessage, viewerId: number): number | undefined {
    return msg.channelPts ?? msg.boxPts.get(viewerId);
  }

  /** The id `viewerId` sees for `msg`, or undefined when the message is not in its view. */
  idFor(msg: StoredMessage, viewerId: number | undefined): number | undefined {
    if (msg.channelId !== undefined) return msg.channelId;
    if (viewerId === undefined) return msg.serial;
    return msg.boxIds.get(viewerId);
  }

  /** The id the emulator's API uses for `msg` (see `referenceViewer`). */
  referenceId(msg: StoredMessage): number {
    if (msg.channelId !== undefined) return msg.channelId;
    const viewer = this.referenceViewer(msg.chat);
    return (viewer ? msg.boxIds.get(viewer.id) : undefined) ?? msg.serial;
  }

  /** A message of `rec` by the id `viewer` sees (undefined viewer: the reference viewer). */
  findInChat(rec: ChatRecord, id: number, viewer?: EmuUser): StoredMessage | undefined {
    if (rec.chat.kind === "supergroup") return rec.byChannelId.get(id);
    const v = viewer?.isAccount ? viewer : this.referenceViewer(rec);
    if (v === undefined) return rec.messages.find((m) => m.serial === id);
    const msg = this.mailboxes.get(v.id)?.byId.get(id);
    return msg?.chat === rec ? msg : undefined;
  }

  /** Messages of `rec` visible to `viewerId` (deleted ones excluded), in id order. */
  visibleMessages(rec: ChatRecord, viewerId: number | undefined): StoredMessage[] {
    return rec.messages.filter((m) => !m.deleted && this.idFor(m, viewerId) !== undefined);
  }

  /** The plain view of a message for a viewer (undefined viewer: the reference viewer). */
  view(msg: StoredMessage, viewer?: EmuUser): EmuMessage {
    const viewerId = viewer?.isAccount ? viewer.id : this.referenceViewer(msg.chat)?.id;
    const id = (viewer?.isAccount ? this.idFor(msg, viewer.id) : undefined) ?? this.referenceId(msg);
    const from = this.users.get(msg.fromId);
    const sentAs = msg.senderChat?.chat;
    const replyTo = msg.replyTo ? this.idFor(msg.replyTo, viewerId) : undefined;
    return {
      chat: msg.chat.chat,
      id,
      fromId: msg.fromId,
      fromName: sentAs ? (sentAs.title ?? sentAs.peerId) : from ? displayName(from) : String(msg.fromId),
      ...(sentAs ? { senderChatId: sentAs.peerId } : {}),
      text: msg.text,
      ...(replyTo !== undefined ? { replyTo } : {}),
      ...(msg.topicId !== undefined ? { topicId: msg.topicId } : {}),
      date: msg.date,
      ...(msg.sticker ? { media: "sticker" as const, stickerEmoji: msg.sticker.emoji } : {}),
      ...(msg.media ? { media: msg.media.kind } : {}),
      ...(msg.media || msg.sticker ? { fileId: (msg.media?.file ?? msg.sticker?.file)!.id } : {}),
      ...(msg.media?.kind === "voice" || msg.media?.kind === "audio"
        ? {
            audio: {
              bytes: msg.media.file.bytes,
              mimeType: msg.media.file.mimeType,
              duration: msg.media.duration ?? 0,
              ...(msg.media.waveform ? { waveform: msg.media.waveform } : {}),
            },
          }
        : {}),
      ...(msg.entities.length > 0 ? { entities: msg.entities } : {}),
    };
  }
}

/** "First Last" or just "First". */
function displayName(u: EmuUser): string {
  return u.lastName ? `${u.firstName} ${u.lastName}` : u.firstName;
}
