/**
 * The shape of a login method: it runs for an auth key (which may belong to no account yet),
 * not for an account as the other methods do.
 */
import type { Api } from "telegram";
import type { AuthKeyRecord, AuthServer } from "../auth-server";
import type { TlViews } from "../tl-views";

/** What a login method may touch. */
export interface AuthContext {
  readonly auth: AuthServer;
  /** The auth key of the connection the request came on. */
  readonly key: AuthKeyRecord;
  readonly views: TlViews;
  /** Emulator wall time in ms. */
  readonly now: number;
}

/** One emulated login method. `handle` returns the TL result or throws an `RpcFault`. */
export interface AuthMethodHandler {
  readonly method: string;
  handle(ctx: AuthContext, request: Api.AnyRequest): unknown;
}

/** Declares a login method for one request class. */
export function defineAuthMethod<R extends Api.AnyRequest>(
  method: string,
  cls: abstract new (...args: never[]) => R,
  fn: (ctx: AuthContext, request: R) => unknown,
): AuthMethodHandler {
  return {
    method,
    handle(ctx, request) {
      if (!(request instanceof cls)) throw new Error(`emulator: ${method} handler got ${request.className}`);
      return fn(ctx, request);
    },
  };
}
