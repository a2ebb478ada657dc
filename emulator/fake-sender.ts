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
  /** Read by GramJS's ping loop (which the emulator keeps off). */
  isReconnecting = false;

  /**
   * The account's link, once the sender is bound to one: `connect()` asks whether the network is
   * reachable (and brings the link up), `up()` whether the transport is up now.
   */
  link: { connect(): boolean; up(): boolean } | undefined;

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

  /** GramJS's own side channel (connect handshake, pings); app requests go through invoke(). */
  send(request: Api.AnyRequest): Promise<unknown> {
    // connect() sends InvokeWithLayer(InitConnection(help.GetConfig)) and ignores the answer.
    // It is transport set-up, not something the app asked, so it is neither recorded nor handled.
    if (request instanceof Api.InvokeWithLayer) {
      this.device = deviceOf(request) ?? this.device;
      return Promise.resolve(undefined);
    }
    if (request instanceof Api.PingDelayDisconnect) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => this.onRequest({ request, resolve, reject }));
  }
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
