/**
 * Telegram's other data centres, as GramJS meets them: a file lives on one DC (`dc_id` in its
 * photo or document), and upload.getFile on a connection to another DC answers FILE_MIGRATE_X.
 * GramJS then borrows an "exported sender" for that DC (`getSender(dcId)` →
 * `_borrowExportedSender` → `_connectSender`): a second connection with its own auth key —
 * the session's key for that DC when it has one, else a new one, which GramJS signs in with
 * auth.exportAuthorization (on the main connection) and auth.importAuthorization (inside the
 * new connection's initConnection).
 *
 * GramJS's own `_connectSender` runs unchanged; only the MTProto sender it builds
 * (`_createExportedSender`) is replaced by a `DcSender` talking to the emulator, which keeps
 * each DC key with the AuthServer (a key that never imported an authorization is anonymous:
 * AUTH_KEY_UNREGISTERED).
 */
import { randomBytes } from "node:crypto";
import { Api, type TelegramClient } from "telegram";
import { AuthKey } from "telegram/crypto/AuthKey.js";
import type { AuthKeyRecord, AuthServer } from "./auth-server";
import type { Connection } from "./client-link";
import { deviceOf, FakeSender, type PendingRequest } from "./fake-sender";
import type { FaultPlan } from "./fault-plan";
import { fromLong, toLong } from "./long";
import { RpcFault, toGramJsError } from "./rpc-fault";

/** What the DC senders need from the emulator. */
export interface DataCentreDeps {
  readonly auth: AuthServer;
  /** Answers an account request that came on `conn` (the emulator's RpcEndpoint). */
  readonly receive: (conn: Connection, pending: PendingRequest) => void;
  /** `failNext("auth.ImportAuthorization", …)` strikes the sign-in of a new DC key. */
  readonly faults: FaultPlan;
}

// The private GramJS fields touched here.
interface ClientInternals {
  _createExportedSender(dcId: number): unknown;
  _authKeyCallback(authKey: AuthKey, dcId: number): Promise<void>;
  _borrowExportedSender(dcId: number, shouldReconnect?: boolean, existing?: unknown): Promise<unknown>;
  getSender(dcId?: number): Promise<unknown>;
}

/** GramJS's MTProtoSender for another DC, as far as `_connectSender` and downloads use one. */
class DcSender extends FakeSender {
  /** Read by `_connectSender` (`getDC(dcId, !!authKey.getKey())`). */
  readonly authKey: AuthKey;
  /** Set by GramJS once the key imported an authorization; true from the start for a key that had one. */
  _authenticated = false;
  /** GramJS's release timer reads it (pending requests keep a sender alive). */
  readonly _pendingState = { values: (): unknown[] => [] };
  isConnecting = false;
  key: AuthKeyRecord | undefined;
  /** The connection the emulator answers this sender's requests on. */
  readonly conn: Connection;
  connects = 0;

  constructor(
    private readonly client: TelegramClient,
    readonly dcId: number,
    sessionKey: AuthKey | undefined,
    main: Connection,
    private readonly deps: DataCentreDeps,
  ) {
    super(() => undefined);
    this.authKey = sessionKey ?? new AuthKey();
    const detached = (): boolean => main.detached || this.userDisconnected;
    // The same account and network as the main connection, on another DC.
    this.conn = {
      client: main.client,
      account: main.account,
      sender: this,
      network: main.network,
      dcId,
      dcSenders: [],
      held: main.held,
      sendLoop: "running",
      get detached() {
        return detached();
      },
      set detached(_v: boolean) {},
      get linkUp() {
        return main.linkUp;
      },
      set linkUp(_v: boolean) {},
    };
  }

  /** The handshake: reuse the session's key for this DC as the real one would, else make a new one. */
  override async connect(): Promise<boolean> {
    this.userDisconnected = false;
    this._disconnected = false;
    this.connects++;
    if (!this.conn.linkUp) return false;
    if (this.authKey.getKey()) {
      this._authenticated = true; // MTProtoSender: "Already have an auth key"
    } else {
      await this.authKey.setKey(randomBytes(256));
      // As MTProtoSender does with a new key: the session may keep it for this DC.
      await (this.client as unknown as ClientInternals)._authKeyCallback(this.authKey, this.dcId);
    }
    this.key = this.deps.auth.key(this.authKey.getKey()!, this.dcId);
    return true;
  }

  override isConnected(): boolean {
    return !this.userDisconnected && this.conn.linkUp;
  }

  /** `_connectSender` sends InvokeWithLayer(InitConnection(auth.importAuthorization)) here. */
  override send(request: Api.AnyRequest): Promise<unknown> {
    if (request instanceof Api.PingDelayDisconnect)
      return Promise.resolve(new Api.Pong({ msgId: request.pingId, pingId: request.pingId }));
    if (request instanceof Api.InvokeWithLayer) {
      this.device = deviceOf(request) ?? this.device;
      const query = request.query instanceof Api.InitConnection ? request.query.query : undefined;
      if (!(query instanceof Api.auth.ImportAuthorization)) return Promise.resolve(undefined);
      return new Promise((resolve, reject) =>
        setImmediate(() => {
          try {
            if (!this.key) throw new RpcFault("AUTH_KEY_UNREGISTERED", 401);
            const fault = this.deps.faults.takeFailure(query.className, query);
            if (fault) throw fault;
            this.deps.auth.importAuthorization(this.key, fromLong(query.id), Buffer.from(query.bytes));
            // GramJS ignores this answer; an empty user of the right id stands for the account.
            resolve(
              new Api.auth.Authorization({ user: new Api.UserEmpty({ id: toLong(this.conn.account.id) }) }),
            );
          } catch (e) {
            reject(e instanceof RpcFault ? toGramJsError(e, query) : e);
          }
        }),
      );
    }
    return new Promise((resolve, reject) => this.addStateToQueue({ request, resolve, reject }));
  }

  override addStateToQueue(state: PendingRequest): void {
    if (this.key?.accountId !== this.conn.account.id) {
      // A key that never imported the account's authorization: the DC does not know it.
      setImmediate(() =>
        state.reject(toGramJsError(new RpcFault("AUTH_KEY_UNREGISTERED", 401), state.request)),
      );
      return;
    }
    this.deps.receive(this.conn, state);
  }

  /** GramJS's release timer calls this when a borrowed sender hangs (never here). */
  _reconnect(): void {}
}

/**
 * Makes `client`'s downloads and other-DC requests meet the emulator's data centres:
 * `getSender()` with no DC or the main one is the main connection; any other DC goes through
 * GramJS's real `_borrowExportedSender` with a DcSender in place of a network sender.
 */
export function installDataCentres(client: TelegramClient, main: Connection, deps: DataCentreDeps): void {
  const internals = client as unknown as ClientInternals;
  internals._createExportedSender = (dcId: number) => {
    const sessionKey = client.session.getAuthKey(dcId);
    const sender = new DcSender(client, dcId, sessionKey?.getKey() ? sessionKey : undefined, main, deps);
    main.dcSenders.push(sender);
    return sender;
  };
  internals.getSender = (dcId?: number) =>
    dcId && dcId !== main.dcId ? internals._borrowExportedSender(dcId) : Promise.resolve(main.sender);
}
