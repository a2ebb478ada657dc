/**
 * Installs the emulator into a real TelegramClient: the fake sender plus the few private GramJS
 * fields a network connection would normally set.
 */
import { Api, type TelegramClient } from "telegram";
import { trackDispatches } from "./dispatch-updates";
import { FakeSender, type PendingRequest, type SenderLink } from "./fake-sender";
import { toLong } from "./long";
import { startPingLoop, type NetworkClock } from "./ping-loop";
import type { EmuUser } from "./types";

/**
 * The network as one account sees it (it outlives a client: a restarted process meets the same
 * outage). See `emu.net` (connections.ts).
 */
export interface AccountNetwork {
  /** The socket is dead: nothing reaches the server, nothing comes back. */
  down: boolean;
  /**
   * Whether GramJS reconnects by itself when the network returns ("auto"), or has spent its
   * `connectionRetries` and waits for the app to call `client.connect()` ("manual").
   */
  reconnect: "auto" | "manual";
  /** Requests work, but the server pushes nothing (Telegram "forgot" the session's updates). */
  silenced: boolean;
  /**
   * The session's update queue overflowed (`overflowUpdates`): "armed" replaces the next push by
   * updatesTooLong, "sent" drops pushes until the client calls updates.getDifference.
   */
  overflow: "off" | "armed" | "sent";
  /** `client.connect()` calls seen, for tests of connect retries. */
  connectAttempts: number;
  /** How long the server takes to answer a ping (ms; 0: on the next event-loop turn). */
  pingDelayMs: number;
  /** Pings answered so far. */
  pings: number;
  /** Reconnects GramJS ran by itself (its ping loop gave up on a pong). */
  reconnects: number;
  /** Requests GramJS's reconnects lost (queued, never sent; their promises never settle), by method. */
  readonly lost: string[];
}

/** One attached client. `detached` turns it into a crashed process: nothing in, nothing out. */
export interface Connection {
  readonly client: TelegramClient;
  readonly account: EmuUser;
  readonly sender: FakeSender;
  readonly network: AccountNetwork;
  detached: boolean;
  /** This client's transport is up (false while the network is down, and after a "manual" outage until connect()). */
  linkUp: boolean;
  /** Requests GramJS queued while the link was down; sent when it comes back, as GramJS re-sends them. */
  readonly held: PendingRequest[];
  /**
   * GramJS's send loop: "running"; "stopping" once a reconnect began (it packs one more batch,
   * which is re-sent after the reconnect); "stopped" until the queue is cleared — requests queued
   * then are lost (see gramjs-reconnect.ts).
   */
  sendLoop: "running" | "stopping" | "stopped";
  /** The data centre this connection is to (the main one: the session's, else the account's home DC). */
  readonly dcId: number;
  /** Connections GramJS borrowed for other DCs (downloads), oldest first; see data-centres.ts. */
  readonly dcSenders: (FakeSender & { readonly dcId: number })[];
}

/** What the fake sender asks the emulator (see SenderLink), for one connection. */
export interface ConnectHooks {
  /** True when the network is reachable (the connection then comes up). */
  connect(conn: Connection): boolean;
  ping(conn: Connection, request: Api.PingDelayDisconnect): Promise<unknown>;
  reconnect(conn: Connection): void;
  /** The clock GramJS's ping loop runs on (default: real timers). */
  readonly clock: NetworkClock | undefined;
}

// The private GramJS fields we set; internal to GramJS, hence this narrow structural view.
interface ClientInternals {
  _sender: unknown;
  _selfInputPeer: Api.InputPeerUser | undefined;
  _bot: boolean | undefined;
  _loopStarted: boolean;
  _connectedDeferred: { resolve(): void };
}

/**
 * Makes `client` talk to the emulator as `account`: installs the fake sender, presets
 * `_selfInputPeer` (else GramJS sends users.GetUsers on the first dispatch), starts GramJS's
 * update loop — its pings — as connect() would (once per client: a client GramJS's own connect()
 * already started it for keeps that one) and resolves `_connectedDeferred` (invoke() awaits it).
 */
export function linkClient(
  client: TelegramClient,
  account: EmuUser,
  network: AccountNetwork,
  onRequest: (conn: Connection, pending: PendingRequest) => void,
  hooks: ConnectHooks,
  /** The account's home DC (the connection's DC when the session names none). */
  homeDc: number,
  /** A sender GramJS's own connect() already installed (see network.ts); default: a new one. */
  sender?: FakeSender,
): Connection {
  const conn: Connection = {
    client,
    account,
    sender: sender ?? new FakeSender((pending) => onRequest(conn, pending)),
    network,
    detached: false,
    linkUp: !network.down,
    held: [],
    sendLoop: "running",
    dcId: client.session.dcId || homeDc,
    dcSenders: [],
  };
  trackDispatches(client);
  const link: SenderLink = {
    connect: () => hooks.connect(conn),
    up: () => conn.linkUp,
    ping: (request) => hooks.ping(conn, request),
    reconnect: () => hooks.reconnect(conn),
  };
  conn.sender.link = link;
  const internals = client as unknown as ClientInternals;
  internals._sender = conn.sender;
  internals._selfInputPeer = new Api.InputPeerUser({
    userId: toLong(account.id),
    accessHash: toLong(account.accessHash),
  });
  internals._bot = account.bot;
  if (!internals._loopStarted) {
    internals._loopStarted = true;
    startPingLoop(client, hooks.clock);
  }
  internals._connectedDeferred.resolve();
  return conn;
}
