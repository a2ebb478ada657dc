/**
 * The shape of one emulated RPC method, and what it may touch.
 */
import { Api } from "telegram";
import type { Freeze } from "../account-restrictions";
import type { AuthServer } from "../auth-server";
import type { StoredMessage } from "../stored-message";
import type { EntityBag, TlViews } from "../tl-views";
import type { DuplicateMode, EmuUser, PreparedDelivery, UpdateLimits, UpdateShapes } from "../types";
import type { World } from "../world";

/** Everything a method handler needs: server state, the calling account and the time. */
export interface MethodContext {
  readonly world: World;
  readonly views: TlViews;
  readonly account: EmuUser;
  /** The data centre the request came to (the main connection's, or a borrowed one's). */
  readonly dcId: number;
  /** The login side: exported authorizations for other DCs. */
  readonly auth: AuthServer;
  /** Emulator wall time in ms. */
  readonly now: number;
  /** Limits of the update protocol (difference slices, TooLong thresholds). */
  readonly limits: UpdateLimits;
  /** How a repeated random_id is answered. */
  readonly duplicates: DuplicateMode;
  /** The account's freeze, when Telegram froze it (help.getAppConfig shows it). */
  readonly freeze: Freeze | undefined;
  /** "telegram": answer sends to DMs and basic groups with UpdateShortSentMessage. */
  readonly shapes: UpdateShapes;
  /** Publishes a message an account just created: onMessage listeners and other attached members. */
  announce(msg: StoredMessage): void;
  /** Pushes updates to another account after this request's answer (e.g. a reaction to its message). */
  pushLater(delivery: PreparedDelivery): void;
}

/*
 * Note for handlers: a request parsed back from TL bytes (strictTl) has absent optional fields
 * set to `null`, not `undefined` — test optional fields with `== null`.
 */

/** One emulated method. `handle` returns the TL result or throws an `RpcFault`. */
export interface MethodHandler {
  /** TL name as GramJS spells it in `className`, e.g. "messages.SendMessage". */
  readonly method: string;
  handle(ctx: MethodContext, request: Api.AnyRequest): unknown;
}

/** Declares a handler for one request class; the request arrives already narrowed. */
export function defineMethod<R extends Api.AnyRequest>(
  method: string,
  cls: abstract new (...args: never[]) => R,
  fn: (ctx: MethodContext, request: R) => unknown,
): MethodHandler {
  return {
    method,
    handle(ctx, request) {
      if (!(request instanceof cls)) throw new Error(`emulator: ${method} handler got ${request.className}`);
      return fn(ctx, request);
    },
  };
}

/** An `Api.Updates` envelope, as Telegram wraps the effects of most write methods. */
export function updatesEnvelope(updates: Api.TypeUpdate[], bag: EntityBag, nowMs: number): Api.Updates {
  return new Api.Updates({
    updates,
    users: bag.users,
    chats: bag.chats,
    date: Math.floor(nowMs / 1000),
    seq: 0,
  });
}
