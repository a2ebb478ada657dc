/**
 * Installs the emulator into a real TelegramClient: the fake sender plus the few private GramJS
 * fields a network connection would normally set.
 */
import { Api, type TelegramClient } from "telegram";
import { FakeSender, type PendingRequest } from "./fake-sender.js";
import { toLong } from "./long.js";
import type { EmuUser } from "./types.js";

/** One attached client. `detached` turns it into a crashed process: nothing in, nothing out. */
export interface Connection {
  readonly client: TelegramClient;
  readonly account: EmuUser;
  readonly sender: FakeSender;
  detached: boolean;
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
 * `_selfInputPeer` (else GramJS sends users.GetUsers on the first dispatch), keeps GramJS's ping
 * loop off (connect() would start it; there is nothing to ping) and resolves `_connectedDeferred`
 * (invoke() awaits it).
 */
export function linkClient(
  client: TelegramClient,
  account: EmuUser,
  onRequest: (conn: Connection, pending: PendingRequest) => void,
  /** A sender GramJS's own connect() already installed (see network.ts); default: a new one. */
  sender?: FakeSender,
): Connection {
  const conn: Connection = {
    client,
    account,
    sender: sender ?? new FakeSender((pending) => onRequest(conn, pending)),
    detached: false,
  };
  const internals = client as unknown as ClientInternals;
  internals._sender = conn.sender;
  internals._selfInputPeer = new Api.InputPeerUser({ userId: toLong(account.id), accessHash: toLong(account.accessHash) });
  internals._bot = account.bot;
  internals._loopStarted = true;
  internals._connectedDeferred.resolve();
  return conn;
}
