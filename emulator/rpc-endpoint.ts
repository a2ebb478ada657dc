/**
 * The server end of the fake connection: records each request, applies fault injection, runs
 * the method handler and answers asynchronously through the request's resolve/reject.
 */
import type { Api } from "telegram";
import type { AuthServer } from "./auth-server";
import type { Connection } from "./client-link";
import type { PendingRequest } from "./fake-sender";
import type { FaultPlan } from "./fault-plan";
import { queueDuringReconnect } from "./gramjs-reconnect";
import type { MethodContext } from "./methods/method";
import { methodHandler } from "./methods/registry";
import type { NetworkClock } from "./ping-loop";
import { RpcFault, toGramJsError } from "./rpc-fault";
import type { StoredMessage } from "./stored-message";
import { roundTripRequest, roundTripResult } from "./tl-roundtrip";
import type { TlViews } from "./tl-views";
import type { EmuUser, PreparedDelivery, RecordedRequest, UpdateLimits, UpdateShapes } from "./types";
import type { World } from "./world";

/** What the endpoint needs from the emulator. */
export interface RpcEndpointDeps {
  readonly world: World;
  readonly auth: AuthServer;
  readonly views: TlViews;
  readonly faults: FaultPlan;
  readonly strictTl: boolean;
  readonly now: () => number;
  readonly limits: UpdateLimits;
  readonly shapes: UpdateShapes;
  /** A message an account created by a request (see MessageBus.publish). */
  readonly publish: (msg: StoredMessage, sender: EmuUser) => void;
  /** Updates for another account, pushed after the current answer (see MessageBus.later). */
  readonly pushLater: (delivery: PreparedDelivery) => void;
  /** The clock GramJS's ping loop runs on, when not real time (see ping-loop.ts). */
  readonly networkClock?: NetworkClock | undefined;
}

/** Answers the requests of every attached client. */
export class RpcEndpoint {
  private log: RecordedRequest[] = [];
  private readonly listeners = new Set<(r: RecordedRequest) => void>();

  constructor(private readonly deps: RpcEndpointDeps) {}

  /** Every request received, in order. */
  get requests(): readonly RecordedRequest[] {
    return this.log;
  }

  clearRequests(): void {
    this.log = [];
  }

  /** Be told of every request as it arrives (before it is answered). */
  onRequest(listener: (r: RecordedRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Entry point for `FakeSender.addStateToQueue`. */
  receive(conn: Connection, pending: PendingRequest): void {
    // A crashed process sends nothing: its requests neither reach the server nor get answers.
    if (conn.detached) return;
    // invoke() stamps its requests for the ping loop's "no request for 30 minutes": on its clock.
    if (this.deps.networkClock)
      (conn.client as unknown as Stamped)._lastRequest = this.deps.networkClock.now();
    // A dead link: GramJS keeps the request queued and sends it after the reconnect.
    if (!conn.linkUp) {
      conn.held.push(pending);
      return;
    }
    // GramJS is reconnecting: its send loop stopped; the request waits, or is lost with the queue.
    const queued = queueDuringReconnect(conn, pending);
    if (queued === "held") conn.held.push(pending);
    if (queued !== "server") return;
    const method = pending.request.className;
    // GramJS reuses request objects (iterMessages bumps offsetId on the same instance), so the
    // log keeps a shallow snapshot of the fields as they were sent.
    const record = { account: conn.account, method, request: snapshot(pending.request), at: this.deps.now() };
    this.log.push(record);
    for (const l of this.listeners) l(record);
    // Never answer synchronously: a real answer always arrives on a later event-loop turn.
    setImmediate(() => void this.answer(conn, pending, method));
  }

  private async answer(conn: Connection, pending: PendingRequest, method: string): Promise<void> {
    const { request } = pending;
    const { faults } = this.deps;
    // The link died before the server saw it: it goes out again after the reconnect.
    if (!conn.linkUp) return this.requeue(conn, pending);
    const fault =
      faults.revokedFault(conn.account.id) ??
      faults.takeFailure(method, request) ??
      faults.restrictionFault(conn.account, method, request, (id) =>
        this.deps.world.isContact(conn.account.id, id),
      );
    const hang = fault ? undefined : faults.takeHang(method, request);
    if (hang?.when === "before-apply") return hang.onHang?.();
    const delay = faults.delayOf(method);
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    if (conn.detached) return;
    if (!conn.linkUp) return this.requeue(conn, pending);
    if (fault) {
      pending.reject(toGramJsError(fault, request));
      return;
    }
    let result: unknown;
    let error: unknown;
    try {
      result = this.apply(conn, request, method);
      if (this.deps.strictTl) result = roundTripResult(request, result);
    } catch (e) {
      error = e instanceof RpcFault ? toGramJsError(e, request) : e;
    }
    // A difference is what an overflowed session was waiting for: pushes resume.
    if (method === "updates.GetDifference" && error === undefined) conn.network.overflow = "off";
    // The server did its part; the caller (a process that died meanwhile) never hears about it.
    if (hang?.when === "after-apply") return hang.onHang?.();
    if (error !== undefined) pending.reject(error);
    else pending.resolve(result);
  }

  /** A request whose answer the dead link swallowed before it was applied: GramJS re-sends it later. */
  private requeue(conn: Connection, pending: PendingRequest): void {
    conn.held.push(pending);
  }

  private apply(conn: Connection, request: Api.AnyRequest, method: string): unknown {
    const account = conn.account;
    const handler = methodHandler(method);
    if (!handler) {
      process.stderr.write(`[telegram-emulator] unimplemented method ${method} (account ${account.id})\n`);
      throw new RpcFault("EMULATOR_UNIMPLEMENTED", 400, method);
    }
    const { world, views, strictTl, publish } = this.deps;
    const ctx: MethodContext = {
      world,
      views,
      account,
      dcId: conn.dcId,
      auth: this.deps.auth,
      now: this.deps.now(),
      limits: this.deps.limits,
      duplicates: this.deps.faults.duplicateMode,
      freeze: this.deps.faults.freezeOf(account.id),
      shapes: this.deps.shapes,
      announce: (msg) => publish(msg, account),
      pushLater: this.deps.pushLater,
    };
    try {
      return handler.handle(ctx, strictTl ? roundTripRequest(request) : request);
    } catch (e) {
      if (e instanceof RpcFault && e.errorMessage === "EMULATOR_UNIMPLEMENTED") {
        process.stderr.write(
          `[telegram-emulator] unimplemented: ${e.detail ?? method} (account ${account.id})\n`,
        );
      }
      throw e;
    }
  }
}

interface Stamped {
  _lastRequest: number;
}

function snapshot<T extends object>(request: T): T {
  return Object.assign(Object.create(Object.getPrototypeOf(request) as object) as T, request);
}
