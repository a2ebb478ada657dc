/**
 * Server-side RPC errors of the emulator, and their conversion into GramJS's own error classes.
 */
import { Api, errors } from "telegram";

/**
 * Thrown by method handlers to answer a request with an RPC error. The fake sender converts it
 * with `errors.RPCMessageToError`, exactly as GramJS's MTProtoSender does for a real
 * `rpc_error`, so callers see `FloodWaitError`, `RPCError` with `errorMessage`, and so on.
 */
export class RpcFault extends Error {
  readonly code: number;
  readonly errorMessage: string;
  /** Extra explanation for humans (written to stderr for EMULATOR_UNIMPLEMENTED). */
  readonly detail: string | undefined;

  constructor(errorMessage: string, code: number = defaultErrorCode(errorMessage), detail?: string) {
    super(`${code}: ${errorMessage}${detail ? ` (${detail})` : ""}`);
    this.name = "RpcFault";
    this.code = code;
    this.errorMessage = errorMessage;
    this.detail = detail;
  }
}

/**
 * The error code Telegram uses for an error message: 420 for flood/slow-mode waits, 401 for a
 * session that is gone — and for SESSION_PASSWORD_NEEDED, which Telegram lists in the same class
 * ("the 2FA password is needed") — 406 for AUTH_KEY_DUPLICATED, 500 for
 * PERSISTENT_TIMESTAMP_OUTDATED (an internal replication issue: "try again later", as
 * RPC_CALL_FAIL), else 400.
 */
export function defaultErrorCode(errorMessage: string): number {
  if (/^(FLOOD_WAIT_|FLOOD_PREMIUM_WAIT_|SLOWMODE_WAIT_)/.test(errorMessage)) return 420;
  if (
    /^(AUTH_KEY_UNREGISTERED|SESSION_REVOKED|USER_DEACTIVATED|USER_DEACTIVATED_BAN|SESSION_EXPIRED|AUTH_KEY_INVALID|AUTH_KEY_PERM_EMPTY|SESSION_PASSWORD_NEEDED)$/.test(
      errorMessage,
    )
  )
    return 401;
  if (errorMessage === "AUTH_KEY_DUPLICATED") return 406;
  if (/^(PERSISTENT_TIMESTAMP_OUTDATED|RPC_CALL_FAIL|RPC_MCGET_FAIL)$/.test(errorMessage)) return 500;
  return 400;
}

/** Maps an RPC error through GramJS's mapper, tagged with the request that caused it. */
export function toGramJsError(fault: RpcFault, request: Api.AnyRequest): Error {
  const mapped: unknown = errors.RPCMessageToError(
    new Api.RpcError({ errorCode: fault.code, errorMessage: fault.errorMessage }),
    request,
  );
  return mapped instanceof Error ? mapped : new Error(String(mapped));
}
