/**
 * An in-process Telegram that drives real GramJS clients.
 *
 * Each attached `TelegramClient` gets a fake MTProto sender (see fake-sender.ts), so GramJS's
 * own `invoke()` still runs; incoming messages go through GramJS's own update pipeline (see
 * dispatch-updates.ts). Server rules — per-account id spaces, `mentioned`, reply resolution,
 * RPC errors — follow Telegram, because the code under test depends on them.
 */
import { Api, type TelegramClient } from "telegram";
import { UpdateConnectionState } from "telegram/network/index.js";
import { AuthServer, DEFAULT_DC } from "./auth-server";
import { FILE_DC } from "./file-store";
import { linkClient, type AccountNetwork, type Connection } from "./client-link";
import { dispatchConnectionState } from "./dispatch-updates";
import type { FakeSender } from "./fake-sender";
import { FaultPlan } from "./fault-plan";
import { outboxReads } from "./read-receipts";
import { MessageBus, type PreparedDelivery } from "./message-bus";
import { MessageChanges, type TypingAction } from "./message-changes";
import { reactionPush, setReaction } from "./message-reactions";
import { isStandardReaction } from "../src/base/standard-reactions";
import { Network, type RecordedLoginRequest } from "./network";
import { newMessageUpdates } from "./new-message-update";
import { RpcEndpoint } from "./rpc-endpoint";
import type { ChatRecord, StoredMessage } from "./stored-message";
import { toLong } from "./long";
import { asMessageId } from "./methods/resolve-peer";
import { storePost } from "./store-post";
import { TlViews } from "./tl-views";
import type {
  DuplicateMode,
  EmuChat,
  EmuDevice,
  EmuMessage,
  EmuMessageEvent,
  EmuReaction,
  EmuStickerSet,
  EmuUpdateState,
  EmuUser,
  EmulatorOptions,
  FailNextOptions,
  LoginDetails,
  HangOptions,
  PostedMessage,
  PostOptions,
  RecordedRequest,
  TypingRecord,
  UpdateLimits,
} from "./types";
import { World } from "./world";

export type { PreparedDelivery } from "./message-bus";
export type { RecordedLoginRequest } from "./network";

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
});

/** The in-process Telegram server. */
export class TelegramEmulator {
  private readonly world: World;
  private readonly views: TlViews;
  private readonly faults = new FaultPlan();
  private readonly now: () => number;
  private readonly byAccount = new Map<number, Connection>();
  private readonly byClient = new Map<TelegramClient, Connection>();
  private readonly networks = new Map<number, AccountNetwork>();
  private readonly bus: MessageBus;
  private readonly changes: MessageChanges;
  private readonly endpoint: RpcEndpoint;
  private readonly auth: AuthServer;
  private readonly network: Network;
  private duplicates: DuplicateMode;

  constructor(opts: EmulatorOptions = {}) {
    const strictTl = opts.strictTl ?? false;
    this.now = opts.now ?? Date.now;
    this.duplicates = opts.duplicates ?? "error";
    this.world = new World(this.now);
    this.views = new TlViews(this.world);
    const shapes = opts.updateShapes ?? "telegram";
    this.bus = new MessageBus({
      world: this.world,
      views: this.views,
      connections: this.byAccount,
      strictTl,
      now: this.now,
      shapes,
    });
    this.changes = new MessageChanges({
      world: this.world,
      views: this.views,
      bus: this.bus,
      attached: () => [...this.byAccount.values()].map((c) => c.account),
      now: this.now,
    });
    this.auth = new AuthServer(this.now, opts.loginCodeTtlMs ?? DEFAULT_LOGIN_CODE_TTL_MS, opts.app);
    this.endpoint = new RpcEndpoint({
      world: this.world,
      auth: this.auth,
      views: this.views,
      faults: this.faults,
      strictTl,
      now: this.now,
      limits: { ...DEFAULT_UPDATE_LIMITS, ...opts.updateLimits },
      duplicates: () => this.duplicates,
      shapes,
      publish: (msg, sender) => this.bus.publish(msg, sender.id),
      pushLater: (d) => this.bus.later(d),
    });
    this.network = new Network({
      auth: this.auth,
      views: this.views,
      faults: this.faults,
      strictTl,
      now: this.now,
      user: (id) => this.world.user(id),
      bind: (client, account, sender) => this.link(client, account, sender),
      receive: (conn, pending) => this.endpoint.receive(conn, pending),
    });
  }

  // ---- population ------------------------------------------------------------------------

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
      this.auth.register(user, {
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

  /**
   * Renames a forum topic as Telegram does: a messageService with messageActionTopicEdit {title}
   * inside the topic, in the channel's pts stream, pushed like `createTopic`'s root. Returns its id.
   */
  renameTopic(chat: EmuChat, topicId: number, title: string): number {
    const rec = this.world.record(chat);
    const editor = this.world.referenceViewer(rec)?.id ?? [...rec.members][0] ?? 0;
    const msg = this.world.renameTopic(chat, topicId, title, editor);
    this.bus.pushNow(msg);
    return msg.channelId ?? 0;
  }

  /** The private chat between two users (created on first use; same record in either order). */
  dm(a: EmuUser, b: EmuUser): EmuChat {
    return this.world.dm(a, b);
  }

  /** The chat's marked peer id as `viewer` sees it (differs between the two sides of a DM). */
  peerIdFor(chat: EmuChat, viewer: EmuUser): string {
    if (chat.kind !== "dm") return chat.peerId;
    return String(this.world.dmPeerOf(this.world.record(chat), viewer.id));
  }

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
   * `pushChannelTooLong` names as pts. Resolves after the account's handlers ran.
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
   */
  async removeMember(chat: EmuChat, user: EmuUser, o: { how?: "kicked" | "left" } = {}): Promise<void> {
    if (chat.kind === "dm") throw new Error("emulator: DM membership is fixed");
    const rec = this.world.record(chat);
    rec.members.delete(user.id);
    rec.joinedPts.delete(user.id);
    if (chat.kind !== "supergroup" || !user.isAccount) return;
    if ((o.how ?? "kicked") === "kicked") rec.banned.add(user.id);
    else rec.banned.delete(user.id);
    await this.pushChannelChange(user, rec);
  }

  /** `updateChannel` (the channel's info or the account's membership changed), with the channel as `account` sees it. */
  private pushChannelChange(account: EmuUser, rec: ChatRecord): Promise<void> {
    const view = this.views.chatFor(rec, account.id);
    const update = new Api.UpdateChannel({ channelId: toLong(rec.chat.id) });
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

  /**
   * Connections the account's client holds to other data centres (GramJS's borrowed senders for
   * downloads), open ones only, with the DC each goes to.
   */
  dcConnections(account: EmuUser): number[] {
    return (this.byAccount.get(account.id)?.dcSenders ?? [])
      .filter((s) => !s.userDisconnected)
      .map((s) => s.dcId);
  }

  /** How many times the account exported its authorization to another DC (auth.exportAuthorization). */
  exportedAuthorizations(account: EmuUser): number {
    return this.auth.exportsOf(account.id);
  }

  /** The data centre the account's files are on by default (photos, documents, stickers: 2). */
  get fileDc(): number {
    return FILE_DC;
  }

  /** upload.getFile requests served so far (one per chunk), in order. */
  fileRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === "upload.GetFile");
  }

  // ---- clients ---------------------------------------------------------------------------

  /**
   * Connects `client` as `account` without a network (see client-link.ts); afterwards invoke()
   * and update dispatch work. Attaching another client for the same account replaces the
   * previous one (a restarted process).
   */
  attach(client: TelegramClient, account: EmuUser): void {
    if (!account.isAccount) throw new Error(`emulator: ${account.firstName} was not created with addAccount`);
    this.link(client, account);
  }

  private link(client: TelegramClient, account: EmuUser, sender?: FakeSender): Connection {
    for (const previous of [this.byAccount.get(account.id), this.byClient.get(client)]) {
      if (previous) this.disconnect(previous);
    }
    const conn = linkClient(
      client,
      account,
      this.netOf(account),
      (c, pending) => this.endpoint.receive(c, pending),
      { connect: (c) => this.onConnect(c) },
      {
        homeDc: this.auth.account(account.id)?.homeDc ?? DEFAULT_DC,
        deps: { auth: this.auth, receive: (c, pending) => this.endpoint.receive(c, pending) },
      },
      sender,
    );
    this.byAccount.set(account.id, conn);
    this.byClient.set(client, conn);
    this.world.markAttached(account.id);
    return conn;
  }

  // ---- the network path: real connect(), auth keys, login ----------------------------------

  /**
   * From now on every `TelegramClient` that connects — also one a script builds itself — runs
   * GramJS's real `connect()` against this emulator, with an auth key per connection: a saved
   * session's key is signed in if it was before; a new key must log in (auth.sendCode …, or a QR
   * token). Returns the function that restores the real network (call it in `finally`).
   */
  interceptConnect(): () => void {
    return this.network.interceptConnect();
  }

  /** The last login code Telegram sent for a phone, whichever way it went (what its owner reads). */
  loginCode(phone: string): string | undefined {
    return this.auth.lastCodeFor(phone);
  }

  /** The last verification code sent to an e-mail address being set up as a login e-mail. */
  emailCode(email: string): string | undefined {
    return this.auth.lastEmailCodeFor(email);
  }

  /** The account's login e-mail (set up during a login), if any. */
  loginEmail(account: EmuUser): string | undefined {
    return this.auth.loginEmailOf(account.id);
  }

  /**
   * The next `times` login e-mail set-ups of `phone` are proved but not taken: account.verifyEmail
   * answers emailVerifiedLogin whose sent code is sentCodeTypeSetUpEmailRequired again.
   */
  refuseLoginEmail(phone: string, times = 1): void {
    this.auth.refuseLoginEmail(phone, times);
  }

  /**
   * The next `times` (default 1) connections through the network path (`interceptConnect`) never
   * finish their handshake: `client.connect()` stays pending — a route that drops packets.
   */
  stallHandshakes(times = 1): void {
    this.network.stallHandshakes(times);
  }

  /** Makes the phone's outstanding login codes expire now. */
  expireLoginCodes(phone: string): void {
    this.auth.expireCodes(phone);
  }

  /**
   * Another logged-in device of `account` scans a QR login code and accepts it: `token`, or the
   * newest one still valid. The exporting client is told with UpdateLoginToken. False when
   * there is no valid token to accept.
   */
  acceptLoginToken(account: EmuUser, token?: Buffer): boolean {
    return this.auth.acceptLoginToken(account.id, token);
  }

  /** How many QR login tokens could be accepted right now. */
  liveLoginTokens(): number {
    return this.auth.liveLoginTokens();
  }

  /**
   * The account's device list, as Telegram shows it in every app: one entry per signed-in session
   * (auth keys that logged in through the network path, and the attached client), with what the
   * client named in initConnection when it connected.
   */
  devices(account: EmuUser): EmuDevice[] {
    const out = this.auth.devices(account.id);
    const attached = this.byAccount.get(account.id)?.sender.device;
    if (attached && !out.includes(attached)) out.push(attached);
    return out;
  }

  /** True when some auth key is signed in as `account`. */
  isSignedIn(account: EmuUser): boolean {
    return this.auth.isSignedIn(account.id);
  }

  /** Requests answered on the login path, in order (not in `requests`: they have no account). */
  get loginRequests(): readonly RecordedLoginRequest[] {
    return this.network.requests;
  }

  /** Just the method names of `loginRequests`. */
  loginMethods(): string[] {
    return this.network.requests.map((r) => r.method);
  }

  /** Stops answering `client` (a crashed process): its pending and future requests never settle. */
  detach(client: TelegramClient): void {
    const conn = this.byClient.get(client);
    if (conn) this.disconnect(conn);
  }

  /**
   * Puts every user and chat `account` shares a chat with into its client's entity cache, as
   * fetching the dialog list after login would — so the app can address a chat by marked id
   * before anything arrived from it. (GramJS forgets access hashes with a fresh StringSession.)
   */
  primeEntityCache(account: EmuUser): void {
    const conn = this.byAccount.get(account.id);
    if (!conn) throw new Error(`emulator: ${account.firstName} is not attached`);
    const bag = this.views.entitiesFor([], account, this.world.chatsOf(account.id));
    const envelope = new Api.Updates({ updates: [], users: bag.users, chats: bag.chats, date: 0, seq: 0 });
    conn.client._entityCache.add(envelope);
    conn.client.session.processEntities(envelope);
  }

  /** True while `account` has an attached client. */
  isAttached(account: EmuUser): boolean {
    return this.byAccount.has(account.id);
  }

  // ---- the network -----------------------------------------------------------------------

  /**
   * The account's network dies (a dead socket). While down no update reaches its client (and
   * none is replayed later: the client learns what it missed only by asking getDifference);
   * messages posted meanwhile are still stored and still move pts. Requests get no answer —
   * GramJS queues them and raises nothing (the caller's own timeout is what fails them) — and
   * are sent when the link comes back. Handlers see GramJS's UpdateConnectionState(disconnected).
   * `reconnect: "auto"` (default): GramJS reconnects by itself once the network is back;
   * `"manual"`: it spent its `connectionRetries`, and only `client.connect()` brings it back.
   * While down, `client.connect()` resolves false (GramJS after its attempts: "unreachable").
   */
  async dropConnection(account: EmuUser, opts: { reconnect?: "auto" | "manual" } = {}): Promise<void> {
    const net = this.netOf(account);
    net.down = true;
    net.reconnect = opts.reconnect ?? "auto";
    const conn = this.byAccount.get(account.id);
    if (!conn || !conn.linkUp) return;
    conn.linkUp = false;
    await dispatchConnectionState(conn.client, UpdateConnectionState.disconnected);
  }

  /**
   * The network is back. With `reconnect: "auto"` the client reconnects at once: handlers see
   * UpdateConnectionState(connected), the queued requests go out, and GramJS asks getMe() as it
   * does after every reconnect. With "manual", nothing happens until the app calls connect().
   */
  async restoreConnection(account: EmuUser): Promise<void> {
    const net = this.netOf(account);
    net.down = false;
    const conn = this.byAccount.get(account.id);
    if (!conn || conn.linkUp || net.reconnect === "manual") return;
    await this.linkUp(conn);
    // GramJS's _handleReconnect: getMe() after an automatic reconnect (errors are its own to log).
    void (conn.client as unknown as { _handleReconnect(): Promise<void> })._handleReconnect();
  }

  /**
   * Telegram stops pushing updates to `account` while requests keep working (until
   * resumeUpdates, or until its client connects anew: a new connection is pushed to again).
   */
  silenceUpdates(account: EmuUser): void {
    this.netOf(account).silenced = true;
  }

  /** Pushes resume (what was not pushed meanwhile stays missed: getDifference has it). */
  resumeUpdates(account: EmuUser): void {
    this.netOf(account).silenced = false;
  }

  /** How many times clients of `account` called `client.connect()`. */
  connectAttempts(account: EmuUser): number {
    return this.netOf(account).connectAttempts;
  }

  /** True while `account`'s client has a working link (attached, network up, reconnected). */
  isConnected(account: EmuUser): boolean {
    const conn = this.byAccount.get(account.id);
    return conn !== undefined && conn.linkUp && !conn.sender.userDisconnected;
  }

  private netOf(account: EmuUser): AccountNetwork {
    let net = this.networks.get(account.id);
    if (!net) {
      net = { down: false, reconnect: "auto", silenced: false, overflow: "off", connectAttempts: 0 };
      this.networks.set(account.id, net);
    }
    return net;
  }

  /** `client.connect()`: fails while the network is down, else (re)establishes the link. */
  private onConnect(conn: Connection): boolean {
    conn.network.connectAttempts++;
    if (conn.network.down) {
      void dispatchConnectionState(conn.client, UpdateConnectionState.disconnected);
      return false;
    }
    if (!conn.linkUp) void this.linkUp(conn);
    // A new connection is a fresh subscription: Telegram pushes to it again after a silence.
    conn.network.silenced = false;
    return true;
  }

  private async linkUp(conn: Connection): Promise<void> {
    conn.linkUp = true;
    const dispatched = dispatchConnectionState(conn.client, UpdateConnectionState.connected);
    for (const pending of conn.held.splice(0)) this.endpoint.receive(conn, pending);
    await dispatched;
  }

  private disconnect(conn: Connection): void {
    conn.detached = true;
    this.byClient.delete(conn.client);
    if (this.byAccount.get(conn.account.id) === conn) this.byAccount.delete(conn.account.id);
    this.world.markDetached(conn.account.id);
  }

  // ---- incoming messages -----------------------------------------------------------------

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

  // ---- update state ----------------------------------------------------------------------

  /** The server's update state of `account` (what updates.GetState would answer, date aside). */
  updateState(account: EmuUser): EmuUpdateState {
    const box = this.world.mailbox(account.id);
    return { pts: box.pts.pts, qts: box.qts, seq: box.seq, date: box.pts.date };
  }

  /** The current pts of a supergroup. */
  channelPts(chat: EmuChat): number {
    if (chat.kind !== "supergroup") throw new Error(`emulator: ${chat.peerId} is not a supergroup`);
    return this.world.record(chat).pts.pts;
  }

  /**
   * Pushes `updateChannelTooLong` for `chat` to `account` (Telegram's "this channel has a gap,
   * call getChannelDifference"). Its pts is where a client without the channel's state should
   * start: `o.pts`, else the point the account joined (`addMember` after creation), else the
   * channel's current pts. Resolves after the handlers ran. When it cannot reach the client (no
   * client attached — the process is down —, a dead link, a silenced session), it is kept for the
   * account's next complete updates.getDifference, which carries it in `other_updates` with the
   * channel in `chats` — as Telegram tells a client that was away about channels it should fetch.
   */
  pushChannelTooLong(account: EmuUser, chat: EmuChat, o: { pts?: number } = {}): Promise<void> {
    const rec = this.world.record(chat);
    if (chat.kind !== "supergroup") throw new Error(`emulator: ${chat.peerId} is not a supergroup`);
    const pts = o.pts ?? rec.joinedPts.get(account.id) ?? rec.pts.pts;
    const update = new Api.UpdateChannelTooLong({ channelId: toLong(chat.id), pts });
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
  }

  /**
   * Telegram's queue of updates for `account`'s session overflows: the next push is replaced by
   * one `updatesTooLong` ("too many updates, call updates.getDifference") and nothing more is
   * pushed until the client calls updates.getDifference — which has everything that was not
   * pushed. Messages posted meanwhile are stored and move pts as usual.
   */
  overflowUpdates(account: EmuUser): void {
    this.netOf(account).overflow = "armed";
  }

  // ---- inspection ------------------------------------------------------------------------

  /** Every request any attached client sent, in order. */
  get requests(): readonly RecordedRequest[] {
    return this.endpoint.requests;
  }

  clearRequests(): void {
    this.endpoint.clearRequests();
  }

  /** Be told of every request an account sends, as it arrives; returns unsubscribe. */
  onRequest(listener: (r: RecordedRequest) => void): () => void {
    return this.endpoint.onRequest(listener);
  }

  /** Be told when an account asks to react to a message (as it asks; REACTION_INVALID may follow). */
  onReaction(listener: (e: { account: EmuUser; messageId: number; emoji: string }) => void): () => void {
    return this.onRequest((r) => {
      if (!(r.request instanceof Api.messages.SendReaction)) return;
      const emoji = (r.request.reaction ?? [])
        .map((x) => (x instanceof Api.ReactionEmoji ? x.emoticon : "?"))
        .join("");
      listener({ account: r.account, messageId: asMessageId(r.request.msgId), emoji });
    });
  }

  /** Just the method names of `requests` (optionally of one account), in order. */
  methods(account?: EmuUser): string[] {
    return this.endpoint.requests
      .filter((r) => account === undefined || r.account.id === account.id)
      .map((r) => r.method);
  }

  /** Chat actions (typing…) accounts reported, optionally for one chat. */
  typing(chat?: EmuChat): readonly TypingRecord[] {
    return chat === undefined ? [...this.world.typing] : this.world.typing.filter((t) => t.chat === chat);
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

  /**
   * Deletes messages for everyone; `ids` as `viewer` (default: reference account) sees them.
   * Attached members get UpdateDeleteMessages / UpdateDeleteChannelMessages (with pts); resolves
   * after their handlers ran.
   */
  deleteMessages(chat: EmuChat, ids: number[], viewer?: EmuUser): Promise<void> {
    const rec = this.world.record(chat);
    const msgs = ids.flatMap((id) => this.world.findInChat(rec, id, viewer) ?? []);
    return this.changes.delete(rec, msgs);
  }

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
    return this.changes.edit(rec, msg, text, o.entities);
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
    return this.changes.typing(this.world.record(chat), user, o.action ?? "typing", o.topicId);
  }

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

  /** True when `account` blocked `user`. */
  isBlocked(account: EmuUser, user: EmuUser): boolean {
    return this.world.mailbox(account.id).blocked.has(user.id);
  }

  // ---- fault injection -------------------------------------------------------------------

  /** How a repeated random_id is answered from now on: RANDOM_ID_DUPLICATE, or a replay of the original. */
  setDuplicateMode(mode: DuplicateMode): void {
    this.duplicates = mode;
  }

  /**
   * Answers the next request(s) of `method` with an RPC error, mapped by GramJS's own mapper
   * (so FLOOD_WAIT_120 arrives as errors.FloodWaitError with seconds 120).
   */
  failNext(method: string, errorMessage: string, opts?: FailNextOptions): void {
    this.faults.failNext(method, errorMessage, opts);
  }

  /** Answers `method` only after `ms` (real timers); 0 removes the delay. */
  setDelay(method: string, ms: number): void {
    this.faults.setDelay(method, ms);
  }

  /**
   * Ends `account`'s session as Telegram does when it is terminated from another device, logged
   * out, duplicated or the account is banned: every later request of that account fails with
   * `error` (SESSION_REVOKED 401 by default; AUTH_KEY_UNREGISTERED, SESSION_EXPIRED,
   * AUTH_KEY_INVALID, AUTH_KEY_PERM_EMPTY, USER_DEACTIVATED(_BAN) 401; AUTH_KEY_DUPLICATED 406).
   * `o.code` answers with another error code — e.g. a 401 under a name Telegram may add later.
   */
  revokeSession(account: EmuUser, error = "SESSION_REVOKED", o: { code?: number } = {}): void {
    this.faults.revoke(account.id, error, o.code);
  }

  /** Never answers the next request(s) of `method`, before or after applying them. */
  hang(method: string, o: HangOptions): void {
    this.faults.hang(method, o);
  }
}
