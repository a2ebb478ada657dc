/**
 * The attached clients and the network each account sees (`emu.net`): which client speaks for
 * which account, links that die and come back, sessions Telegram stops pushing to, overflowing
 * update queues, and the connections a client borrowed to other data centres.
 *
 * An account's network state outlives its client: a restarted process meets the same outage.
 */
import { Api, type TelegramClient } from "telegram";
import { UpdateConnectionState } from "telegram/network/index.js";
import { type AuthServer, DEFAULT_DC } from "./auth-server";
import { linkClient, type AccountNetwork, type Connection } from "./client-link";
import { installDataCentres } from "./data-centres";
import { dispatchConnectionState } from "./dispatch-updates";
import type { FakeSender, PendingRequest } from "./fake-sender";
import type { FaultPlan } from "./fault-plan";
import { FILE_DC } from "./file-store";
import { gramJsReconnect } from "./gramjs-reconnect";
import type { NetworkClock } from "./ping-loop";
import type { EmuUser } from "./types";
import type { World } from "./world";

/** What a test may do to the network (`emu.net`); the rest of Connections is the emulator's own. */
export type NetControls = Pick<
  Connections,
  | "dropConnection"
  | "restoreConnection"
  | "silenceUpdates"
  | "resumeUpdates"
  | "overflowUpdates"
  | "connectAttempts"
  | "isConnected"
  | "dcConnections"
  | "fileDc"
  | "setPingDelay"
  | "pings"
  | "reconnects"
  | "lostRequests"
>;

export interface ConnectionsDeps {
  readonly world: World;
  readonly auth: AuthServer;
  /** Answers an account request (the emulator's RpcEndpoint). */
  readonly receive: (conn: Connection, pending: PendingRequest) => void;
  /** Faults of the other DCs' sign-in (auth.importAuthorization). */
  readonly faults: FaultPlan;
  /** The clock GramJS's ping loop, the ping delay and GramJS's reconnect pause run on (default: real timers). */
  readonly clock: NetworkClock | undefined;
}

export class Connections {
  /** Attached clients by account id (live view: the message bus delivers through it). */
  readonly byAccount = new Map<number, Connection>();
  private readonly byClient = new Map<TelegramClient, Connection>();
  private readonly networks = new Map<number, AccountNetwork>();

  constructor(private readonly deps: ConnectionsDeps) {}

  // ---- attached clients ------------------------------------------------------------------

  /** The account's attached client, if any. */
  of(account: EmuUser): Connection | undefined {
    return this.byAccount.get(account.id);
  }

  /** Accounts with an attached client. */
  attachedAccounts(): EmuUser[] {
    return [...this.byAccount.values()].map((c) => c.account);
  }

  /** Makes `client` the account's client (replacing a previous one for either). */
  link(client: TelegramClient, account: EmuUser, sender?: FakeSender): Connection {
    for (const previous of [this.byAccount.get(account.id), this.byClient.get(client)]) {
      if (previous) this.disconnect(previous);
    }
    const receive = (c: Connection, pending: PendingRequest): void => this.deps.receive(c, pending);
    const conn = linkClient(
      client,
      account,
      this.netOf(account),
      receive,
      {
        connect: (c) => this.onConnect(c),
        ping: (c, request) => this.ping(c, request),
        reconnect: (c) => gramJsReconnect(c, { clock: this.deps.clock, linkUp: (x) => this.linkUp(x) }),
        clock: this.deps.clock,
      },
      this.deps.auth.account(account.id)?.homeDc ?? DEFAULT_DC,
      sender,
    );
    // Downloads borrow an "exported sender" for the file's DC: GramJS's own borrowing runs, with a
    // sender that talks to the emulator's DC instead of opening a real connection.
    installDataCentres(client, conn, { auth: this.deps.auth, receive, faults: this.deps.faults });
    this.byAccount.set(account.id, conn);
    this.byClient.set(client, conn);
    this.deps.world.markAttached(account.id);
    return conn;
  }

  /** Stops answering `client` (a crashed process). */
  detach(client: TelegramClient): void {
    const conn = this.byClient.get(client);
    if (conn) this.disconnect(conn);
  }

  private disconnect(conn: Connection): void {
    conn.detached = true;
    this.byClient.delete(conn.client);
    if (this.byAccount.get(conn.account.id) === conn) this.byAccount.delete(conn.account.id);
    this.deps.world.markDetached(conn.account.id);
  }

  // ---- the network (emu.net) -------------------------------------------------------------

  /**
   * The account's network dies, and GramJS has noticed (its ping went unanswered, or the socket
   * was reset): it is reconnecting (`isReconnecting`), and handlers see its
   * UpdateConnectionState(disconnected) at once (GramJS's own detection time — up to a ping
   * interval and a ping timeout — is skipped). While down no update reaches its client (and
   * none is replayed later: the client learns what it missed only by asking getDifference);
   * messages posted meanwhile are still stored and still move pts. Requests get no answer —
   * GramJS queues them and raises nothing (the caller's own timeout is what fails them) — and
   * are sent when the link comes back.
   * `reconnect: "auto"` (default): GramJS reconnects by itself once the network is back;
   * `"manual"`: it spent its `connectionRetries` (no longer reconnecting), and only
   * `client.connect()` brings it back. While down, `client.connect()` resolves false (GramJS
   * after its attempts: "unreachable").
   */
  async dropConnection(account: EmuUser, opts: { reconnect?: "auto" | "manual" } = {}): Promise<void> {
    const net = this.netOf(account);
    net.down = true;
    net.reconnect = opts.reconnect ?? "auto";
    const conn = this.byAccount.get(account.id);
    if (!conn || !conn.linkUp) return;
    conn.linkUp = false;
    conn.sender.isReconnecting = true;
    await dispatchConnectionState(conn.client, UpdateConnectionState.disconnected);
    if (net.reconnect === "manual") conn.sender.isReconnecting = false;
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
    conn.sender.isReconnecting = false;
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

  /**
   * Telegram's queue of updates for `account`'s session overflows: the next push is replaced by
   * one `updatesTooLong` ("too many updates, call updates.getDifference") and nothing more is
   * pushed until the client calls updates.getDifference — which has everything that was not
   * pushed. Messages posted meanwhile are stored and move pts as usual.
   */
  overflowUpdates(account: EmuUser): void {
    this.netOf(account).overflow = "armed";
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

  /**
   * Connections the account's client holds to other data centres (GramJS's borrowed senders for
   * downloads), open ones only, with the DC each goes to.
   */
  dcConnections(account: EmuUser): number[] {
    return (this.byAccount.get(account.id)?.dcSenders ?? [])
      .filter((s) => !s.userDisconnected)
      .map((s) => s.dcId);
  }

  /**
   * How long the server takes to answer `account`'s pings from now on (ms; 0, the default: on
   * the next event-loop turn). GramJS's wake-up branch reports the connection disconnected when a
   * pong takes over 1 s, and reconnects when none comes within 3 s (ping-loop.ts).
   */
  setPingDelay(account: EmuUser, ms: number): void {
    this.netOf(account).pingDelayMs = Math.max(0, ms);
  }

  /** Pings of `account`'s clients the server answered so far. */
  pings(account: EmuUser): number {
    return this.netOf(account).pings;
  }

  /** Reconnects GramJS ran by itself on `account`'s clients (a pong that never came in time). */
  reconnects(account: EmuUser): number {
    return this.netOf(account).reconnects;
  }

  /**
   * Requests of `account`'s clients that GramJS's reconnects lost (queued after its send loop
   * stopped, dropped with the queue; their promises never settle), by method, in order.
   */
  lostRequests(account: EmuUser): readonly string[] {
    return this.netOf(account).lost;
  }

  /** The data centre the account's files are on by default (photos, documents, stickers: 2). */
  get fileDc(): number {
    return FILE_DC;
  }

  private netOf(account: EmuUser): AccountNetwork {
    let net = this.networks.get(account.id);
    if (!net) {
      net = {
        down: false,
        reconnect: "auto",
        silenced: false,
        overflow: "off",
        connectAttempts: 0,
        pingDelayMs: 0,
        pings: 0,
        reconnects: 0,
        lost: [],
      };
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
    conn.sender.isReconnecting = false;
    conn.sendLoop = "running";
    if (!conn.linkUp) void this.linkUp(conn);
    // A new connection is a fresh subscription: Telegram pushes to it again after a silence.
    conn.network.silenced = false;
    return true;
  }

  /**
   * A ping from `conn`'s client: the pong after the network's ping delay, on the network clock.
   * A dead link, a client that disconnected or a crashed process never answers (GramJS's own
   * timeout ends the wait).
   */
  private ping(conn: Connection, request: Api.PingDelayDisconnect): Promise<unknown> {
    const dead = () => conn.detached || !conn.linkUp || conn.sender.userDisconnected;
    if (dead()) return new Promise<never>(() => undefined);
    const pong = new Api.Pong({ msgId: request.pingId, pingId: request.pingId });
    const delay = conn.network.pingDelayMs;
    return new Promise((resolve) => {
      const answer = () => {
        if (dead()) return; // the link died on the way: no pong
        conn.network.pings++;
        resolve(pong);
      };
      if (delay <= 0) setImmediate(answer);
      else if (this.deps.clock) this.deps.clock.setTimeout(answer, delay);
      else setTimeout(answer, delay);
    });
  }

  private async linkUp(conn: Connection): Promise<void> {
    conn.linkUp = true;
    const dispatched = dispatchConnectionState(conn.client, UpdateConnectionState.connected);
    for (const pending of conn.held.splice(0)) this.deps.receive(conn, pending);
    await dispatched;
  }
}
