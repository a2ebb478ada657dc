/**
 * A stand-in for GramJS's MTProtoSender. GramJS's real `invoke()` hands every request to
 * `sender.addStateToQueue(state)` and awaits `state.promise`; answering `state.resolve/reject`
 * here keeps everything above the wire real (input-peer resolution, TL serialisation of the
 * request, entity caching from results, RPC error mapping, flood-wait sleeping).
 */
import { Api } from "telegram";
import type { EmuDevice } from "./types";

/** The part of GramJS's RequestState the emulator uses. */
export interface PendingRequest {
  readonly request: Api.AnyRequest;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** The fake sender installed as `client._sender`. */
export class FakeSender {
  /** Read by `invoke()`: true makes it throw "Cannot send requests while disconnected". */
  userDisconnected = false;
  /** Read by `client.disconnected`. */
  _disconnected = false;
  /** Set while GramJS reconnects (see gramjs-reconnect.ts); its ping loop skips pings meanwhile. */
  isReconnecting = false;

  /** The account's link, once the sender is bound to one (see SenderLink). */
  link: SenderLink | undefined;

  /** How the client introduced itself (initConnection at connect()), as the device list shows it. */
  device: EmuDevice | undefined;

  constructor(private readonly onRequest: (pending: PendingRequest) => void) {}

  isConnected(): boolean {
    return !this.userDisconnected && (this.link?.up() ?? true);
  }

  /**
   * Called by `client.connect()`. While the emulator has the account's network down it resolves
   * false, as GramJS's sender does once its `connectionRetries` attempts are spent.
   */
  async connect(): Promise<boolean> {
    this.userDisconnected = false;
    if (this.link && !this.link.connect()) return false;
    this._disconnected = false;
    return true;
  }

  /** Called by `client.disconnect()` / `destroy()`: later invokes throw, deliveries stop. */
  async disconnect(): Promise<void> {
    this.userDisconnected = true;
    this._disconnected = true;
  }

  addStateToQueue(state: PendingRequest): void {
    this.onRequest(state);
  }

  /**
   * GramJS's MTProtoSender.reconnect(): its ping loop calls it when no pong came in time (and
   * its socket loops when the connection breaks). A no-op after disconnect() or while one runs.
   */
  reconnect(): void {
    if (this.userDisconnected || this.isReconnecting) return;
    this.link?.reconnect();
  }

  /** GramJS's own side channel (connect handshake, pings); app requests go through invoke(). */
  send(request: Api.AnyRequest): Promise<unknown> {
    // connect() sends InvokeWithLayer(InitConnection(help.GetConfig)) and ignores the answer.
    // It is transport set-up, not something the app asked, so it is neither recorded nor handled.
    if (request instanceof Api.InvokeWithLayer) {
      this.device = deviceOf(request) ?? this.device;
      return Promise.resolve(undefined);
    }
    if (request instanceof Api.PingDelayDisconnect) return this.ping(request);
    return new Promise((resolve, reject) => this.onRequest({ request, resolve, reject }));
  }

  /** GramJS's ping loop: a pong as the account's network gives it (unbound: at once). */
  protected ping(request: Api.PingDelayDisconnect): Promise<unknown> {
    if (this.link) return this.link.ping(request);
    return Promise.resolve(new Api.Pong({ msgId: request.pingId, pingId: request.pingId }));
  }
}

/** What a sender bound to an account's link asks of the emulator. */
export interface SenderLink {
  /** `client.connect()`: whether the network is reachable (it then brings the link up). */
  connect(): boolean;
  /** Whether the transport is up now. */
  up(): boolean;
  /** A PingDelayDisconnect: the pong, after the network's ping delay; never on a dead link. */
  ping(request: Api.PingDelayDisconnect): Promise<unknown>;
  /** GramJS reconnects (see gramjs-reconnect.ts). */
  reconnect(): void;
}

/** The device an `InvokeWithLayer(InitConnection(...))` names, if it carries one. */
export function deviceOf(request: Api.InvokeWithLayer): EmuDevice | undefined {
  const init = request.query;
  if (!(init instanceof Api.InitConnection)) return undefined;
  return {
    apiId: init.apiId,
    deviceModel: init.deviceModel,
    systemVersion: init.systemVersion,
    appVersion: init.appVersion,
  };
}
