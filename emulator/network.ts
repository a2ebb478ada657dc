/**
 * The emulator as "the network": GramJS's own `connect()` runs (session loading, the
 * InitConnection handshake, the update loop, DC moves), but the MTProto sender it would build is
 * replaced by a `NetworkSender` that talks to the emulator. Each connection carries an auth key —
 * the session's, or a new random one as a real handshake would make — and the emulator's
 * AuthServer decides which account, if any, that key is signed in as.
 *
 * Requests are routed by key: login methods (auth.*, account.getPassword, help.getConfig) are
 * answered for any key; anything else goes to the account's normal endpoint once the key is
 * signed in, and is answered AUTH_KEY_UNREGISTERED (401) before.
 */
import { randomBytes } from "node:crypto";
import { Api, TelegramClient } from "telegram";
import { _handleUpdate } from "telegram/client/updates.js";
import { AuthKey } from "telegram/crypto/AuthKey.js";
import type { AuthKeyRecord, AuthServer } from "./auth-server";
import type { Connection } from "./client-link";
import { deviceOf, FakeSender, type PendingRequest } from "./fake-sender";
import type { FaultPlan } from "./fault-plan";
import { authMethodHandler } from "./methods/auth-registry";
import { RpcFault, toGramJsError } from "./rpc-fault";
import type { TlViews } from "./tl-views";
import { roundTripRequest, roundTripResult } from "./tl-roundtrip";
import type { EmuUser } from "./types";

/** One request a connection sent before (or while) signing in. */
export interface RecordedLoginRequest {
  /** TL name as GramJS spells it, e.g. "auth.SignIn". */
  readonly method: string;
  readonly request: Api.AnyRequest;
  /** The DC the connection is on. */
  readonly dcId: number;
  /** Emulator wall time (ms) when it arrived. */
  readonly at: number;
}

/** What the network needs from the emulator. */
export interface NetworkDeps {
  readonly auth: AuthServer;
  readonly views: TlViews;
  readonly faults: FaultPlan;
  readonly strictTl: boolean;
  readonly now: () => number;
  readonly user: (id: number) => EmuUser | undefined;
  /** Registers a signed-in connection as the account's client (updates reach it from then on). */
  readonly bind: (client: TelegramClient, account: EmuUser, sender: FakeSender) => Connection;
  /** Answers an account request (the emulator's RpcEndpoint). */
  readonly receive: (conn: Connection, pending: PendingRequest) => void;
}

/** GramJS's MTProtoSender, as far as a connection to the emulator needs one. */
export class NetworkSender extends FakeSender {
  /** Read by `connect()` (session.setAuthKey) and `_switchDC()` (authKey.setKey(undefined)). */
  readonly authKey = new AuthKey();
  key: AuthKeyRecord | undefined;
  connection: Connection | undefined;

  constructor(
    readonly client: TelegramClient,
    private readonly network: Network,
  ) {
    super(() => undefined);
  }

  /** The handshake: reuse the session's auth key as the real one would, else make a new key. */
  override async connect(): Promise<boolean> {
    // A network that swallows the handshake: connect() never settles (see stallHandshakes).
    if (this.network.faults.takeStall()) return new Promise<boolean>(() => undefined);
    // A sender already bound to an account whose network is down (see dropConnection).
    if (!(await super.connect())) return false;
    const session = this.client.session;
    const bytes = session.getAuthKey()?.getKey() ?? randomBytes(256);
    await this.authKey.setKey(bytes);
    this.network.connected(this, bytes, session.dcId);
    // Bound just now to an account whose network is down: unreachable.
    return this.connection?.linkUp ?? true;
  }

  override async disconnect(): Promise<void> {
    await super.disconnect();
    if (this.key?.push) this.key.push = undefined;
  }

  override addStateToQueue(state: PendingRequest): void {
    this.network.route(this, state);
  }

  override send(request: Api.AnyRequest): Promise<unknown> {
    // connect() sends InvokeWithLayer(InitConnection(help.GetConfig)) and ignores the answer;
    // the server keeps the device it names with the key (the account's device list).
    if (request instanceof Api.InvokeWithLayer) {
      const device = deviceOf(request);
      if (device) {
        this.device = device;
        if (this.key) this.key.device = device;
      }
      return Promise.resolve(undefined);
    }
    if (request instanceof Api.PingDelayDisconnect) return this.ping(request);
    return new Promise((resolve, reject) => this.network.route(this, { request, resolve, reject }));
  }
}

// The private GramJS fields touched here.
interface ClientInternals {
  _sender: unknown;
}

let intercepting = false;

/** Routes the requests of every NetworkSender. */
export class Network {
  private readonly log: RecordedLoginRequest[] = [];

  constructor(private readonly deps: NetworkDeps) {}

  /** The faults armed for this network (handshake stalls, login-path errors). */
  get faults(): FaultPlan {
    return this.deps.faults;
  }

  /** Requests answered on the login path (login methods, and anything from a key not signed in). */
  get requests(): readonly RecordedLoginRequest[] {
    return this.log;
  }

  /**
   * From now on, every `TelegramClient` that connects — also one built deep inside a script —
   * connects to this emulator. Returns the function that restores the real network.
   */
  interceptConnect(): () => void {
    if (intercepting) throw new Error("emulator: connect() is already intercepted");
    intercepting = true;
    const proto = TelegramClient.prototype as unknown as { connect(this: TelegramClient): Promise<boolean> };
    const original = proto.connect;
    const senderFor = (client: TelegramClient): NetworkSender => new NetworkSender(client, this);
    proto.connect = function (this: TelegramClient): Promise<boolean> {
      const internals = this as unknown as ClientInternals;
      if (internals._sender === undefined) internals._sender = senderFor(this);
      return original.call(this);
    };
    return () => {
      proto.connect = original;
      intercepting = false;
    };
  }

  /** A sender finished its handshake with `bytes` on `dcId`. */
  connected(sender: NetworkSender, bytes: Buffer, dcId: number): void {
    const key = this.deps.auth.key(bytes, dcId);
    sender.key = key;
    key.push = () => {
      // Telegram pushes updateLoginToken in an updateShort; it goes through GramJS's pipeline.
      const update = new Api.UpdateShort({
        update: new Api.UpdateLoginToken(),
        date: Math.floor(this.deps.now() / 1000),
      });
      setImmediate(() => {
        // _handleUpdate unwraps UpdateShort at run time; its typing only lists inner updates.
        if (!sender.userDisconnected) _handleUpdate(sender.client, update as unknown as Api.TypeUpdate);
      });
    };
    this.bindIfSignedIn(sender);
  }

  route(sender: NetworkSender, pending: PendingRequest): void {
    const key = sender.key;
    if (!key) {
      pending.reject(new Error("emulator: request before the connection was made"));
      return;
    }
    const method = pending.request.className;
    const handler = authMethodHandler(method);
    if (!handler && key.accountId !== undefined) {
      const conn = this.bindIfSignedIn(sender);
      if (conn) return this.deps.receive(conn, pending);
    }
    this.log.push({ method, request: pending.request, dcId: key.dcId, at: this.deps.now() });
    // Never answer synchronously: a real answer always arrives on a later event-loop turn.
    setImmediate(() => {
      const fault = this.deps.faults.takeFailure(method, pending.request);
      if (fault) return pending.reject(toGramJsError(fault, pending.request));
      try {
        if (!handler) throw new RpcFault("AUTH_KEY_UNREGISTERED", 401);
        const request = this.deps.strictTl ? roundTripRequest(pending.request) : pending.request;
        const ctx = { auth: this.deps.auth, key, views: this.deps.views, now: this.deps.now() };
        let result = handler.handle(ctx, request);
        if (this.deps.strictTl) result = roundTripResult(pending.request, result);
        this.bindIfSignedIn(sender);
        pending.resolve(result);
      } catch (e) {
        pending.reject(e instanceof RpcFault ? toGramJsError(e, pending.request) : e);
      }
    });
  }

  /** Makes a signed-in connection the account's client, once. */
  private bindIfSignedIn(sender: NetworkSender): Connection | undefined {
    const accountId = sender.key?.accountId;
    if (accountId === undefined || sender.userDisconnected) return undefined;
    if (sender.connection && !sender.connection.detached && sender.connection.account.id === accountId)
      return sender.connection;
    const account = this.deps.user(accountId);
    if (!account) return undefined;
    sender.connection = this.deps.bind(sender.client, account, sender);
    return sender.connection;
  }
}
