/**
 * GramJS 2.26.22's own reconnect (MTProtoSender.reconnect / _reconnect), as an attached client
 * meets it — and the requests it loses on the way:
 *
 * 1. `reconnect()` sets `isReconnecting` and waits 1 s. The send loop, waiting for work, wakes at
 *    the next request, packs what is queued (those get a msg_id), sees `isReconnecting` and stops
 *    without sending; nothing more is taken from the queue.
 * 2. `_reconnect()` → `_disconnect()`: handlers see UpdateConnectionState(disconnected); the socket
 *    closes (answers still on their way are lost: those requests are re-sent).
 * 3. Requests with a msg_id are kept for re-sending; then `_sendQueue.clear()` empties the queue:
 *    a request queued after the send loop stopped has no msg_id and is dropped — its promise never
 *    settles (GramJS's invoke() has no timeout of its own).
 * 4. `connect(new connection)`: UpdateConnectionState(connected), the kept requests go out, and
 *    the client's `_handleReconnect` asks getMe().
 *
 * If the network is down at step 4, the link waits as after `emu.net.dropConnection`: with
 * reconnect "auto" it comes back at `restoreConnection`, with "manual" only at `client.connect()`.
 */
import { UpdateConnectionState } from "telegram/network/index.js";
import type { Connection } from "./client-link";
import { dispatchConnectionState } from "./dispatch-updates";
import type { PendingRequest } from "./fake-sender";
import type { NetworkClock } from "./ping-loop";

/** GramJS's pause before it reconnects ("not to flood the server with reconnects"). */
const RECONNECT_PAUSE_MS = 1000;

export interface ReconnectDeps {
  readonly clock: NetworkClock | undefined;
  /** Brings the link up: connected, the kept requests go out. */
  readonly linkUp: (conn: Connection) => Promise<void>;
}

/** GramJS starts reconnecting `conn` (see the file comment). */
export function gramJsReconnect(conn: Connection, deps: ReconnectDeps): void {
  const sender = conn.sender;
  sender.isReconnecting = true;
  // A crashed process runs nothing: it never comes back.
  if (conn.detached) return;
  conn.network.reconnects++;
  conn.sendLoop = "stopping";
  after(deps.clock, RECONNECT_PAUSE_MS, () => void finish(conn, deps));
}

/**
 * Where a request GramJS queues on `conn` goes while its send loop is not running: "server" (it
 * is sent now), "held" (re-sent after the reconnect) or "lost".
 */
export function queueDuringReconnect(conn: Connection, pending: PendingRequest): "server" | "held" | "lost" {
  if (conn.sendLoop === "running") return "server";
  if (conn.sendLoop === "stopping") {
    // The send loop wakes for this one, packs it with whatever is queued in the same turn, and stops.
    setImmediate(() => {
      if (conn.sendLoop === "stopping") conn.sendLoop = "stopped";
    });
    return "held";
  }
  conn.network.lost.push(pending.request.className);
  return "lost";
}

async function finish(conn: Connection, deps: ReconnectDeps): Promise<void> {
  if (conn.detached) return;
  // _disconnect(): the old socket closes.
  conn.linkUp = false;
  await dispatchConnectionState(conn.client, UpdateConnectionState.disconnected);
  // _sendQueue.clear(): from now on requests wait for the new connection.
  conn.sendLoop = "running";
  if (conn.detached || conn.sender.userDisconnected) return;
  if (conn.network.down) {
    // No network: "auto" waits for restoreConnection; "manual" has spent its attempts.
    if (conn.network.reconnect === "manual") conn.sender.isReconnecting = false;
    return;
  }
  // MTProtoSender._connect clears isReconnecting before connect() dispatches "connected".
  conn.sender.isReconnecting = false;
  // A new connection is a fresh subscription: Telegram pushes to it again after a silence.
  conn.network.silenced = false;
  await deps.linkUp(conn);
  // _autoReconnectCallback → the client's _handleReconnect: getMe() (its errors are GramJS's to log).
  void (conn.client as unknown as { _handleReconnect(): Promise<void> })._handleReconnect();
}

function after(clock: NetworkClock | undefined, ms: number, fn: () => void): void {
  if (clock) clock.setTimeout(fn, ms);
  else setTimeout(fn, ms);
}
