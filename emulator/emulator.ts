/**
 * An in-process Telegram that drives real GramJS clients.
 *
 * Each attached `TelegramClient` gets a fake MTProto sender (see fake-sender.ts), so GramJS's
 * own `invoke()` still runs; incoming messages go through GramJS's own update pipeline (see
 * dispatch-updates.ts). Server rules — per-account id spaces, `mentioned`, reply resolution,
 * RPC errors — follow Telegram, because the code under test depends on them.
 *
 * The emulator itself sets the scene (users, accounts, chats, topics, sticker sets), posts
 * messages and waits for them, and attaches clients. The rest is in its parts:
 * `emu.chats` (what happens in chats after they exist), `emu.updates` (pts, pushes that ask for a
 * difference), `emu.net` (links, silences, overflows, other DCs), `emu.auth` (Telegram's login
 * server), `emu.faults` (errors, delays, hangs, revoked sessions), `emu.traffic` (what the
 * clients sent).
 */
import { forbidVoiceMessages } from "./uploaded-media";
import { Api, type TelegramClient } from "telegram";
import { AuthDesk } from "./auth-desk";
import { AuthServer } from "./auth-server";
import { noteChannelNews } from "./channel-news";
import { Chats } from "./chats";
import { Connections, type NetControls } from "./connections";
import { FaultPlan, type Faults } from "./fault-plan";
import { MessageBus } from "./message-bus";
import { MessageChanges } from "./message-changes";
import { Network } from "./network";
import { newMessageUpdates } from "./new-message-update";
import { RpcEndpoint } from "./rpc-endpoint";
import type { StoredMessage } from "./stored-message";
import { storePost } from "./store-post";
import { TlViews } from "./tl-views";
import { blockedElsewhere } from "./peer-blocks";
import { Traffic } from "./traffic";
import type {
  EmuChat,
  EmuMessage,
  EmuMessageEvent,
  EmuStickerSet,
  EmuUser,
  EmulatorOptions,
  LoginDetails,
  PostedMessage,
  PostOptions,
  PreparedDelivery,
  UpdateLimits,
} from "./types";
import { UpdateProtocol } from "./update-protocol";
import { World } from "./world";
import { Presence } from "./presence";
import { WebPages } from "./web-pages-api";

export type { PreparedDelivery } from "./types";

/** Telegram does not publish how long a login code stays valid; the emulator uses 5 minutes. */
const DEFAULT_LOGIN_CODE_TTL_MS = 5 * 60_000;

/** `post()` options plus emulator-only switches. */
export interface PostOptionsWithEcho extends PostOptions {
  /**
   * Also deliver to the sender's own client (with out:true), as Telegram does for a message the
   * account's owner typed on another device. Default false.
   */
  readonly deliverToSender?: boolean;
}

/** Telegram's update-protocol limits as the emulator applies them by default (see UpdateLimits). */
const DEFAULT_UPDATE_LIMITS: UpdateLimits = Object.freeze({
  differenceSlice: 1000,
  differenceTooLongAfter: 1_000_000,
  channelDifferenceLimit: 100,
  channelTooLongAfter: undefined,
  channelTimeout: 30,
  pushedMembersMax: 1000,
});

/** The in-process Telegram server. */
export class TelegramEmulator {
  /** What happens in chats after they exist: members, topic renames, edits, deletions, reactions, reads, typing. */
  readonly chats: Chats;
  /** The update protocol: pts as the server holds them, pushes that ask for a difference. */
  readonly updates: UpdateProtocol;
  /** Each account's network: dead links, silenced pushes, overflowing queues, connections to other DCs. */
  readonly net: NetControls;
  /** Telegram's login server: codes sent, QR tokens, devices, sign-in state, login-path requests. */
  readonly auth: AuthDesk;
  /** Faults armed for upcoming requests: RPC errors, delays, hangs, revoked sessions, duplicates, stalls. */
  readonly faults: Faults;
  /** What the attached clients sent: requests, chat actions, file chunks. */
  readonly traffic: Traffic;
  /** Online status: what accounts said with account.updateStatus, and what others see of it. */
  readonly presence: Presence;
  /** Link previews: pages the server can preview, and finishing a pending one (web-pages.ts). */
  readonly webPages: WebPages;

  private readonly world: World;
  private readonly views: TlViews;
  private readonly now: () => number;
  private readonly connections: Connections;
  private readonly bus: MessageBus;
  private readonly authServer: AuthServer;
  private readonly network: Network;

  constructor(opts: EmulatorOptions = {}) {
    const strictTl = opts.strictTl ?? false;
    const now = opts.now ?? Date.now;
    const faults = new FaultPlan(opts.duplicates ?? "error", now);
    const world = new World(now);
    const views = new TlViews(world, now);
    const shapes = opts.updateShapes ?? "telegram";
    const auth = new AuthServer(now, opts.loginCodeTtlMs ?? DEFAULT_LOGIN_CODE_TTL_MS, opts.app);
    const connections = new Connections({
      world,
      auth,
      receive: (conn, pending) => endpoint.receive(conn, pending),
      faults,
      clock: opts.networkClock,
    });
    const limits: UpdateLimits = { ...DEFAULT_UPDATE_LIMITS, ...opts.updateLimits };
    const bus = new MessageBus({
      world,
      views,
      connections: connections.byAccount,
      strictTl,
      now,
      shapes,
      limits,
    });
    world.onChannelEvent = (rec) => noteChannelNews(world, rec, limits, (id) => bus.reachable(id));
    const changes = new MessageChanges({
      world,
      views,
      bus,
      attached: () => connections.attachedAccounts(),
      now,
    });
    const endpoint = new RpcEndpoint({
      world,
      auth,
      views,
      faults,
      strictTl,
      now,
      limits,
      shapes,
      publish: (msg, sender) => bus.publish(msg, sender.id),
      pushLater: (d) => bus.later(d),
      networkClock: opts.networkClock,
    });
    this.network = new Network({
      auth,
      views,
      faults,
      strictTl,
      now,
      user: (id) => world.user(id),
      bind: (client, account, sender) => connections.link(client, account, sender),
      receive: (conn, pending) => endpoint.receive(conn, pending),
    });
    this.world = world;
    this.views = views;
    this.now = now;
    this.connections = connections;
    this.bus = bus;
    this.authServer = auth;
    this.chats = new Chats({ world, views, bus, changes, now });
    this.updates = new UpdateProtocol({ world, views, bus, now });
    this.net = connections;
    this.auth = new AuthDesk(auth, this.network, connections);
    this.faults = faults;
    this.traffic = new Traffic(endpoint, world);
    this.presence = new Presence(world, now);
    this.webPages = new WebPages({
      registry: world.webPages,
      messagesOf: (page) => world.messagesWithPage(page),
      changes,
    });
  }

  // ---- the scene: users, accounts, chats, topics, sticker sets ---------------------------

  /** A simulated human (or bot) member; it never runs a client. */
  addUser(u: { firstName: string; lastName?: string; username?: string; bot?: boolean }): EmuUser {
    return this.world.addUser(u, false);
  }

  /**
   * A user a TelegramClient logs in as (owns a mailbox, can be attached). With `phone` it can
   * also log in for real through the network path (see `interceptConnect`): by code, with its
   * 2FA `password`, or by QR; `dc` is its home DC (default 4, where GramJS first connects).
   */
  addAccount(u: { firstName: string; lastName?: string; username?: string } & LoginDetails): EmuUser {
    const { phone, password, passwordHint, dc, codeDelivery, loginEmail, ...profile } = u;
    const user = this.world.addUser(profile, true);
    if (phone !== undefined) {
      this.authServer.register(user, {
        phone,
        ...(password !== undefined ? { password } : {}),
        ...(passwordHint !== undefined ? { passwordHint } : {}),
        ...(dc !== undefined ? { dc } : {}),
        ...(codeDelivery !== undefined ? { codeDelivery } : {}),
        ...(loginEmail !== undefined ? { loginEmail } : {}),
      });
    }
    return user;
  }

  /**
   * Puts `user` in `account`'s contact list: from then on the User objects `account` receives
   * carry `contact: true`, as Telegram sends them.
   */
  addContact(account: EmuUser, user: EmuUser): void {
    this.world.mailbox(account.id).contacts.add(user.id);
  }

  /**
   * The account's owner blocks (or unblocks) `user` in another Telegram app: the blocklist changes
   * and `updatePeerBlocked` is pushed to the account's client (peer-blocks.ts). Resolves after its
   * handlers ran.
   */
  async blockElsewhere(account: EmuUser, user: EmuUser, blocked: boolean): Promise<void> {
    const push = blockedElsewhere(this.world, this.views, account, user, blocked, this.now());
    await this.bus.deliver(push.account, push.updates);
  }

  /**
   * `user` deletes their account: from now on every User object of them carries `deleted: true`
   * (no names), and sends to them answer INPUT_USER_DEACTIVATED (400). Nothing is pushed: accounts
   * see it in the next answer or update that carries the user.
   */
  deleteAccount(user: EmuUser): void {
    if (user.isAccount) throw new Error(`emulator: ${user.firstName} is an attached account`);
    this.world.deletedUsers.add(user.id);
  }

  /**
   * `user`'s privacy settings forbid voice messages (a Premium setting): a voice note sent to
   * their DM answers VOICE_MESSAGES_FORBIDDEN (403), as Telegram does.
   */
  forbidVoiceMessages(user: EmuUser): void {
    forbidVoiceMessages(this.world, user.id);
  }

  /**
   * The account's Saved Messages: its private chat with itself (peer = the account's own user).
   * Messages the owner types there from another device arrive with `post({chat, from: account,
   * deliverToSender: true})` as out:true; the account's own sends there are not echoed back.
   */
  savedMessages(account: EmuUser): EmuChat {
    if (!account.isAccount) throw new Error(`emulator: ${account.firstName} was not created with addAccount`);
    return this.world.dm(account, account);
  }

  /** A basic group (marked id -id). */
  createGroup(o: { title: string; members: EmuUser[] }): EmuChat {
    return this.world.createGroup(o.title, o.members);
  }

  /** A megagroup channel (marked id -100id); message 1 is its creation service message. */
  createSupergroup(o: { title: string; members: EmuUser[]; forum?: boolean }): EmuChat {
    return this.world.createSupergroup(o.title, o.members, o.forum ?? false);
  }

  /**
   * A broadcast channel. With `discussion` it is that supergroup's linked channel: a post with
   * `post({ chat: discussion, from: admin, sendAs: channel })` is stored in the channel and
   * arrives in the group as its automatic forward (from_id the channel, fwd_from its post).
   */
  createChannel(o: { title: string; members: EmuUser[]; discussion?: EmuChat }): EmuChat {
    const chat = this.world.createSupergroup(o.title, o.members, false, true);
    if (o.discussion) {
      const channel = this.world.record(chat);
      const group = this.world.record(o.discussion);
      if (o.discussion.kind !== "supergroup" || o.discussion.broadcast)
        throw new Error(`emulator: ${o.discussion.peerId} is not a supergroup`);
      channel.linked = group;
      group.linked = channel;
    }
    return chat;
  }

  /**
   * A forum topic; returns its id (the id of its service root message). Like Telegram, the
   * root — messageService with messageActionTopicCreate {title, icon_color} — is in the channel's
   * pts stream and is pushed to the attached members (delivery starts now, in order before
   * anything posted later; `idle()` waits for the handlers). `onMessage` listeners are not told
   * (they hear conversation only).
   */
  createTopic(chat: EmuChat, title: string): number {
    const rec = this.world.record(chat);
    const creator = this.world.referenceViewer(rec)?.id ?? [...rec.members][0] ?? 0;
    const id = this.world.createTopic(chat, title, creator);
    const root = rec.byChannelId.get(id);
    if (root) this.bus.pushNow(root);
    return id;
  }

  /** The private chat between two users (created on first use; same record in either order). */
  dm(a: EmuUser, b: EmuUser): EmuChat {
    return this.world.dm(a, b);
  }

  /**
   * Adds a sticker set that messages.GetStickerSet and messages.SendMedia know. An animated or
   * video sticker has a still WebP thumbnail unless `thumb` gives its bytes (null: none).
   */
  addStickerSet(o: {
    shortName: string;
    title: string;
    stickers: { emoji: string; bytes?: Buffer; mimeType?: string; thumb?: Buffer | null }[];
  }): EmuStickerSet {
    const set = this.world.stickers.add(o);
    return {
      id: set.id,
      accessHash: set.accessHash,
      shortName: set.shortName,
      title: set.title,
      stickers: set.docs.map((d) => ({
        id: d.id,
        accessHash: d.accessHash,
        fileReference: d.file.fileReference,
        emoji: d.emoji,
      })),
    };
  }

  /** A sticker `emoji` in set `shortName`, created (set and all) when Telegram has none yet. */
  ensureSticker(shortName: string, emoji: string): void {
    this.world.stickers.ensure(shortName, emoji);
  }

  // ---- messages --------------------------------------------------------------------------

  /**
   * Stores a message from a member and delivers it to every attached member account (other
   * than the sender's own client) through GramJS's pipeline; resolves after all handlers finished.
   */
  async post(o: PostOptionsWithEcho): Promise<PostedMessage> {
    const { msg, deliveries } = this.prepare(o);
    await Promise.all(deliveries.map((d) => this.bus.deliver(d.account, d.updates)));
    const world = this.world;
    return { ...world.view(msg), idFor: (account: EmuUser) => world.idFor(msg, account.id) };
  }

  /** Everything `post()` does except delivery (state is updated, listeners are told). */
  buildIncoming(o: PostOptionsWithEcho): PreparedDelivery[] {
    return this.prepare(o).deliveries;
  }

  /**
   * Delivers a message that is already stored to `account`'s client again, as a new-message
   * update — what catch-up (getDifference) or a second session of the account brings, including
   * the account's own sends (out:true). `messageId` as `account` sees it. Resolves after the
   * handlers ran.
   */
  async redeliver(chat: EmuChat, messageId: number, account: EmuUser): Promise<void> {
    const msg = this.world.findInChat(this.world.record(chat), messageId, account);
    if (!msg || msg.deleted)
      throw new Error(`emulator: no message ${messageId} in ${chat.peerId} for ${account.firstName}`);
    await this.bus.deliver(account, newMessageUpdates(this.world, this.views, msg, account, this.now()));
  }

  /** Pushes prepared updates through `account`'s client, awaiting its handlers (no-op if not attached). */
  deliver(account: EmuUser, updates: Api.TypeUpdates): Promise<void> {
    return this.bus.deliver(account, updates);
  }

  /**
   * Resolves when everything in flight has settled: the background deliveries of messages that
   * accounts sent (to the other attached accounts) and every handler GramJS is running on an
   * attached client (handlers run concurrently, as in production); rejects with the first error
   * a background delivery hit.
   */
  idle(): Promise<void> {
    return this.bus.idle();
  }

  private prepare(o: PostOptionsWithEcho): { msg: StoredMessage; deliveries: PreparedDelivery[] } {
    const msg = storePost(this.world, o, this.now());
    this.bus.emit(msg);
    return { msg, deliveries: this.bus.prepare(msg, o.deliverToSender ? undefined : o.from.id) };
  }

  /**
   * Messages of a chat in id order as `viewer` sees them (default: the first attached member
   * account), including the accounts' own sends; deleted and service messages are left out.
   */
  history(chat: EmuChat, viewer?: EmuUser): readonly EmuMessage[] {
    const rec = this.world.record(chat);
    const v = viewer?.isAccount ? viewer : this.world.referenceViewer(rec);
    return this.world
      .visibleMessages(rec, v?.id)
      .filter((m) => !m.service)
      .map((m) => this.world.view(m, v));
  }

  /** Called for every message that appears in any chat, once, with reference-account ids. */
  onMessage(listener: (m: EmuMessageEvent) => void): () => void {
    return this.bus.onMessage(listener);
  }

  // ---- clients ---------------------------------------------------------------------------

  /**
   * Connects `client` as `account` without a network (see client-link.ts); afterwards invoke()
   * and update dispatch work. Attaching another client for the same account replaces the
   * previous one (a restarted process).
   */
  attach(client: TelegramClient, account: EmuUser): void {
    if (!account.isAccount) throw new Error(`emulator: ${account.firstName} was not created with addAccount`);
    this.connections.link(client, account);
  }

  /**
   * From now on every `TelegramClient` that connects — also one a script builds itself — runs
   * GramJS's real `connect()` against this emulator, with an auth key per connection: a saved
   * session's key is signed in if it was before; a new key must log in (auth.sendCode …, or a QR
   * token). Returns the function that restores the real network (call it in `finally`).
   */
  interceptConnect(): () => void {
    return this.network.interceptConnect();
  }

  /** Stops answering `client` (a crashed process): its pending and future requests never settle. */
  detach(client: TelegramClient): void {
    this.connections.detach(client);
  }

  /**
   * Puts every user and chat `account` shares a chat with into its client's entity cache, as
   * fetching the dialog list after login would — so the app can address a chat by marked id
   * before anything arrived from it. (GramJS forgets access hashes with a fresh StringSession.)
   */
  primeEntityCache(account: EmuUser): void {
    const conn = this.connections.of(account);
    if (!conn) throw new Error(`emulator: ${account.firstName} is not attached`);
    const bag = this.views.entitiesFor([], account, this.world.chatsOf(account.id));
    const envelope = new Api.Updates({ updates: [], users: bag.users, chats: bag.chats, date: 0, seq: 0 });
    conn.client._entityCache.add(envelope);
    conn.client.session.processEntities(envelope);
  }

  /** True while `account` has an attached client. */
  isAttached(account: EmuUser): boolean {
    return this.connections.of(account) !== undefined;
  }
}
