/**
 * What happens in chats once they exist (`emu.chats`): members come and go, topics are renamed,
 * users edit, delete, react to and read messages, show typing, admins limit reactions — each
 * pushed to the attached member accounts as Telegram pushes it — and what the server holds about
 * a chat (members, reactions, read marks, blocks, ids as each side sees them).
 * Creating chats and posting messages are the emulator's own (`emu.createSupergroup`, `emu.post`).
 */
import { Api } from "telegram";
import { restrictionsOf, rightsView, type EmuBans } from "./chat-rights";
import { isStandardReaction } from "../src/base/standard-reactions";
import { toLong } from "./long";
import type { MessageBus } from "./message-bus";
import type { MessageChanges, TypingAction } from "./message-changes";
import { BIG_GROUP_MEMBERS, postDeparture } from "./member-departures";
import { upgradeChat } from "./chat-upgrade";
import { setTopicClosed } from "./closed-topics";
import { setReaction } from "./message-reactions";
import { reactionPush } from "./reaction-push";
import { outboxReads } from "./read-receipts";
import type { ChatRecord } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { EmuChat, EmuReaction, EmuUser } from "./types";
import type { World } from "./world";

export interface ChatsDeps {
  readonly world: World;
  readonly views: TlViews;
  readonly bus: MessageBus;
  readonly changes: MessageChanges;
  readonly now: () => number;
}

export class Chats {
  private readonly world: World;
  private readonly views: TlViews;
  private readonly bus: MessageBus;
  private readonly now: () => number;

  constructor(private readonly deps: ChatsDeps) {
    this.world = deps.world;
    this.views = deps.views;
    this.bus = deps.bus;
    this.now = deps.now;
  }

  // ---- membership ------------------------------------------------------------------------

  /** Current members of a chat. */
  members(chat: EmuChat): EmuUser[] {
    return [...this.world.record(chat).members].flatMap((id) => {
      const u = this.world.user(id);
      return u ? [u] : [];
    });
  }

  /**
   * Adds a member to a group or supergroup (later messages reach it). An account added to a
   * supergroup — also one it left or was removed from before — is pushed `updateChannel` with
   * the channel as it now sees it, as Telegram does; its join point is what a later
   * `emu.updates.pushChannelTooLong` names as pts. Resolves after the account's handlers ran.
   */
  async addMember(chat: EmuChat, user: EmuUser): Promise<void> {
    if (chat.kind === "dm") throw new Error("emulator: DM membership is fixed");
    const rec = this.world.record(chat);
    rec.members.add(user.id);
    if (chat.kind !== "supergroup" || !user.isAccount) return;
    rec.banned.delete(user.id);
    rec.joinedPts.set(user.id, rec.pts.pts);
    await this.pushChannelChange(user, rec);
  }

  /**
   * Removes a member. `how`: "kicked" (default; an admin removed or banned it: it sees the
   * supergroup as ChannelForbidden) or "left" (it left: the channel with `left` set). Either way
   * its requests there fail (CHANNEL_PRIVATE — getChannelDifference included — or
   * CHAT_WRITE_FORBIDDEN) and nothing more is pushed to it from there; an account removed from a
   * supergroup is pushed `updateChannel` with that view. Resolves after its handlers ran.
   * A user who is not an account: a messageActionChatDeleteUser service message is posted to the
   * remaining members (member-departures.ts), unless `silent` — by default when the group has 50
   * members or more and the user is not a bot, where Telegram posts none.
   */
  async removeMember(
    chat: EmuChat,
    user: EmuUser,
    o: { how?: "kicked" | "left"; silent?: boolean } = {},
  ): Promise<void> {
    if (chat.kind === "dm") throw new Error("emulator: DM membership is fixed");
    const rec = this.world.record(chat);
    const big = rec.members.size >= BIG_GROUP_MEMBERS && !user.bot;
    rec.members.delete(user.id);
    rec.joinedPts.delete(user.id);
    if (!user.isAccount && !(o.silent ?? big)) {
      postDeparture(this.world, this.bus, rec, user, o.how ?? "kicked", this.now());
      await this.bus.idle();
      return;
    }
    if (chat.kind === "group" && user.isAccount) {
      // Telegram shows the removed account the group as chatForbidden (an updateChat with it;
      // the messageActionChatDeleteUser service message is not modelled).
      await this.pushChatChange(user, rec, new Api.UpdateChat({ chatId: toLong(chat.id) }));
      return;
    }
    if (chat.kind !== "supergroup" || !user.isAccount) return;
    if ((o.how ?? "kicked") === "kicked") rec.banned.add(user.id);
    else rec.banned.delete(user.id);
    await this.pushChannelChange(user, rec);
  }

  /**
   * What members may send (chat-rights.ts): `defaultBans` for every member but admins (`null`
   * lifts them), `member` one member's own restriction (`bans: null` lifts it), `slowmodeSec` a
   * supergroup's slow mode (0: off), `admins` accounts the default bans and slow mode do not hold
   * (with `manage_topics`: they may post in closed forum topics), `adminsWithoutTopicRights` admins
   * without that right. An admin's chat object carries its `admin_rights`.
   * Telegram tells the members: a supergroup's attached member accounts are pushed
   * `updateChannel` with the channel as each sees it (its `default_banned_rights`, their own
   * `banned_rights`, `slowmode_enabled`); a basic group's `updateChatDefaultBannedRights` (a
   * member's own restriction does not exist there). Resolves after the handlers ran.
   */
  async restrict(
    chat: EmuChat,
    o: {
      defaultBans?: EmuBans | null;
      member?: { user: EmuUser; bans: EmuBans | null };
      slowmodeSec?: number;
      admins?: readonly EmuUser[];
      /** Admins without the `manage_topics` right (they are admins too). */
      adminsWithoutTopicRights?: readonly EmuUser[];
    },
  ): Promise<void> {
    if (chat.kind === "dm") throw new Error("emulator: a private chat has no banned rights");
    const rec = this.world.record(chat);
    const r = restrictionsOf(rec);
    if (o.defaultBans !== undefined) r.defaultBans = o.defaultBans ?? undefined;
    if (o.member) {
      if (chat.kind !== "supergroup") throw new Error("emulator: a basic group restricts no single member");
      if (o.member.bans) r.memberBans.set(o.member.user.id, o.member.bans);
      else r.memberBans.delete(o.member.user.id);
    }
    if (o.slowmodeSec !== undefined) {
      if (chat.kind !== "supergroup") throw new Error("emulator: slow mode is a supergroup's");
      r.slowmodeSec = o.slowmodeSec;
    }
    for (const a of o.admins ?? []) {
      r.admins.add(a.id);
      r.noTopicRights.delete(a.id);
    }
    for (const a of o.adminsWithoutTopicRights ?? []) {
      r.admins.add(a.id);
      r.noTopicRights.add(a.id);
    }
    const accounts = this.world.memberAccounts(rec);
    if (chat.kind === "supergroup") {
      await Promise.all(accounts.map((a) => this.pushChannelChange(a, rec)));
      return;
    }
    const update = new Api.UpdateChatDefaultBannedRights({
      peer: new Api.PeerChat({ chatId: toLong(chat.id) }),
      defaultBannedRights:
        rightsView(rec, undefined, this.now()).defaultBannedRights ??
        new Api.ChatBannedRights({ untilDate: 0 }),
      version: 1,
    });
    await Promise.all(
      accounts.map((a) => {
        const bag = this.views.entitiesFor([], a, [rec]);
        return this.bus.deliver(
          a,
          new Api.Updates({
            updates: [update],
            users: bag.users,
            chats: bag.chats,
            date: Math.floor(this.now() / 1000),
            seq: 0,
          }),
        );
      }),
    );
  }

  /** `updateChannel` (the channel's info or the account's membership changed), with the channel as `account` sees it. */
  private pushChannelChange(account: EmuUser, rec: ChatRecord): Promise<void> {
    return this.pushChatChange(account, rec, new Api.UpdateChannel({ channelId: toLong(rec.chat.id) }));
  }

  /** `update` (a chat changed) pushed to `account`, with the chat as it sees it. */
  private pushChatChange(account: EmuUser, rec: ChatRecord, update: Api.TypeUpdate): Promise<void> {
    const view = this.views.chatFor(rec, account.id);
    return this.bus.deliver(
      account,
      new Api.Updates({
        updates: [update],
        users: [],
        chats: view ? [view] : [],
        date: Math.floor(this.now() / 1000),
        seq: 0,
      }),
    );
  }

  /** The chat's marked peer id as `viewer` sees it (differs between the two sides of a DM). */
  peerIdFor(chat: EmuChat, viewer: EmuUser): string {
    if (chat.kind !== "dm") return chat.peerId;
    return String(this.world.dmPeerOf(this.world.record(chat), viewer.id));
  }

  /** True when `account` blocked `user`. */
  isBlocked(account: EmuUser, user: EmuUser): boolean {
    return this.world.mailbox(account.id).blocked.has(user.id);
  }

  /**
   * Upgrades a basic group to a supergroup as Telegram does (chat-upgrade.ts): the old group is
   * deactivated with `migrated_to` and refuses sends (PEER_ID_INVALID); the new supergroup has the
   * same members and title. Both service messages are pushed. Returns the supergroup.
   */
  upgrade(chat: EmuChat): EmuChat {
    return upgradeChat(this.world, this.bus, chat, this.now());
  }

  // ---- topics ----------------------------------------------------------------------------

  /**
   * Renames a forum topic as Telegram does: a messageService with messageActionTopicEdit {title}
   * inside the topic, in the channel's pts stream, pushed like `emu.createTopic`'s root. Returns its id.
   */
  renameTopic(chat: EmuChat, topicId: number, title: string): number {
    const rec = this.world.record(chat);
    const editor = this.world.referenceViewer(rec)?.id ?? [...rec.members][0] ?? 0;
    const msg = this.world.renameTopic(chat, topicId, title, editor);
    this.bus.pushNow(msg);
    return msg.channelId ?? 0;
  }

  /**
   * An admin closes (or, with `closed: false`, reopens) a forum topic as Telegram does: a
   * messageService with messageActionTopicEdit {closed} inside the topic, pushed like a rename;
   * from then on a send there by a member who is not an admin answers TOPIC_CLOSED. Returns its id.
   * Topic 1 is General: its service message carries no topic header, and a send naming no topic
   * is refused while it is closed (Bot API closeGeneralForumTopic; TDLib toggleForumTopicIsClosed).
   */
  closeTopic(chat: EmuChat, topicId: number, closed = true): number {
    const rec = this.world.record(chat);
    const editor = this.world.referenceViewer(rec)?.id ?? [...rec.members][0] ?? 0;
    const msg = this.world.closeTopic(chat, topicId, closed, editor);
    setTopicClosed(rec, topicId, closed);
    this.bus.pushNow(msg);
    return msg.channelId ?? 0;
  }

  // ---- messages after they exist ---------------------------------------------------------

  /**
   * Its author edits a message (`id` as `viewer`, default the reference account, sees it):
   * attached members get UpdateEditMessage / UpdateEditChannelMessage (with pts and edit_date);
   * resolves after their handlers ran. The edited message's entities replace the old ones, as on
   * Telegram: @mentions in `text` are detected, `entities` adds others (e.g. a text mention).
   */
  editMessage(
    chat: EmuChat,
    id: number,
    text: string,
    o: { viewer?: EmuUser; entities?: readonly Api.TypeMessageEntity[] } = {},
  ): Promise<void> {
    const rec = this.world.record(chat);
    const msg = this.world.findInChat(rec, id, o.viewer);
    if (!msg) throw new Error(`emulator: no message ${id} in ${chat.peerId}`);
    return this.deps.changes.edit(rec, msg, text, o.entities);
  }

  /**
   * Deletes messages for everyone; `ids` as `viewer` (default: reference account) sees them.
   * Attached members get UpdateDeleteMessages / UpdateDeleteChannelMessages (with pts); resolves
   * after their handlers ran.
   */
  deleteMessages(chat: EmuChat, ids: number[], viewer?: EmuUser): Promise<void> {
    const rec = this.world.record(chat);
    const msgs = ids.flatMap((id) => this.world.findInChat(rec, id, viewer) ?? []);
    return this.deps.changes.delete(rec, msgs);
  }

  /**
   * `user` shows a chat action in `chat` ("typing" by default; "cancel" stops it): attached
   * members get UpdateUserTyping (DM), UpdateChatUserTyping (basic group) or
   * UpdateChannelUserTyping (supergroup, with top_msg_id for a forum topic). No pts.
   */
  userTyping(
    chat: EmuChat,
    user: EmuUser,
    o: { action?: TypingAction; topicId?: number } = {},
  ): Promise<void> {
    return this.deps.changes.typing(this.world.record(chat), user, o.action ?? "typing", o.topicId);
  }

  /**
   * The file of a posted message (photo, document or sticker) goes stale: upload.getFile with the
   * reference handed out so far answers FILE_REFERENCE_EXPIRED; the message fetched again
   * (messages.getMessages / channels.getMessages, getHistory) carries the new reference.
   * `id` as the reference account sees it.
   */
  expireFileReference(chat: EmuChat, id: number): void {
    const msg = this.world.findInChat(this.world.record(chat), id);
    const file = msg?.media?.file ?? msg?.sticker?.file;
    if (!file) throw new Error(`emulator: message ${id} in ${chat.peerId} has no file`);
    this.world.files.expire(file.id);
  }

  // ---- reads -----------------------------------------------------------------------------

  /**
   * `reader` (a member) reads `chat` up to message `upToId` (reference-account ids; default: the
   * newest). Every attached member account whose messages it read is pushed
   * UpdateReadHistoryOutbox (DMs, basic groups: moves that account's pts, so getDifference has
   * it too) or UpdateReadChannelOutbox (supergroups). Resolves after their handlers ran.
   */
  async readBy(chat: EmuChat, reader: EmuUser, upToId?: number): Promise<void> {
    const rec = this.world.record(chat);
    if (!rec.members.has(reader.id))
      throw new Error(`emulator: ${reader.firstName} is not a member of ${chat.peerId}`);
    const upTo = upToId === undefined ? rec.messages.at(-1) : this.world.findInChat(rec, upToId);
    if (!upTo) return;
    const deliveries = outboxReads(this.world, this.views, rec, reader.id, upTo, this.now());
    await Promise.all(deliveries.map((d) => this.bus.deliver(d.account, d.updates)));
  }

  /** Highest message id `account` marked read in `chat` (in its own id space), 0 if none. */
  readMaxId(chat: EmuChat, account: EmuUser): number {
    return this.world.record(chat).readMax.get(account.id) ?? 0;
  }

  // ---- reactions -------------------------------------------------------------------------

  /** Reactions on a message (id as the reference account sees it). */
  reactions(chat: EmuChat, messageId: number): EmuReaction[] {
    const msg = this.world.findInChat(this.world.record(chat), messageId);
    if (!msg) return [];
    return [...msg.reactions].map(([userId, r]) => ({ userId: String(userId), emoji: r.emoji }));
  }

  /**
   * `user` (a member) reacts to message `messageId` of `chat` (id as `viewer`, default the
   * reference account, sees it) with a standard reaction; `null` removes its reaction. One
   * reaction per user: a new one replaces the old. The message's author, when it is an attached
   * account, is pushed `updateMessageReactions` (no pts); resolves after its handlers ran.
   */
  async react(
    user: EmuUser,
    chat: EmuChat,
    messageId: number,
    emoji: string | null,
    o: { viewer?: EmuUser } = {},
  ): Promise<void> {
    const rec = this.world.record(chat);
    if (!rec.members.has(user.id))
      throw new Error(`emulator: ${user.firstName} is not a member of ${chat.peerId}`);
    const msg = this.world.findInChat(rec, messageId, o.viewer);
    if (!msg || msg.deleted || msg.service)
      throw new Error(`emulator: no message ${messageId} in ${chat.peerId} to react to`);
    if (emoji !== null && !isStandardReaction(emoji))
      throw new Error(`emulator: "${emoji}" is not a standard Telegram reaction`);
    if (!setReaction(msg, user.id, emoji ?? undefined, this.now())) return;
    const push = reactionPush(this.world, this.views, msg, user.id, this.now());
    if (push) await this.bus.deliver(push.account, push.updates);
  }

  /**
   * An admin changes what members of a group or supergroup may react with: "all" standard
   * reactions, a list, or "none". Telegram then pushes `updateChat` / `updateChannel` ("the chat
   * and/or its full info changed: fetch it again") to the member accounts; their reactions are
   * checked against it (REACTION_INVALID). Resolves after their handlers ran. A member the push
   * cannot reach now (no client, a dead link, a silenced session) gets it in its next complete
   * updates.getDifference instead (`other_updates`, the chat in `chats`).
   */
  async setAllowedReactions(chat: EmuChat, allowed: "all" | "none" | readonly string[]): Promise<void> {
    if (chat.kind === "dm") throw new Error("emulator: a private chat allows every standard reaction");
    const rec = this.world.record(chat);
    if (Array.isArray(allowed)) {
      for (const e of allowed)
        if (!isStandardReaction(e)) throw new Error(`emulator: "${e}" is not a standard Telegram reaction`);
    }
    rec.reactions =
      allowed === "all"
        ? { kind: "all" }
        : allowed === "none"
          ? { kind: "none" }
          : { kind: "some", emoji: [...(allowed as readonly string[])] };
    const update =
      chat.kind === "supergroup"
        ? new Api.UpdateChannel({ channelId: toLong(chat.id) })
        : new Api.UpdateChat({ chatId: toLong(chat.id) });
    await Promise.all(
      this.world.memberAccounts(rec).map((account) => {
        const bag = this.views.entitiesFor([], account, [rec]);
        return this.bus.deliverOrKeep(
          account,
          new Api.Updates({
            updates: [update],
            users: bag.users,
            chats: bag.chats,
            date: Math.floor(this.now() / 1000),
            seq: 0,
          }),
          { update, chats: [rec] },
        );
      }),
    );
  }
}
