/**
 * RPC errors that end a session for good: retrying cannot help, only logging in again can.
 */
import { errors } from "telegram";
import { AccountLostError } from "../tasks/errors";

/** Each account-terminal RPC error, in words a person can act on. */
export const ACCOUNT_TERMINAL_ERRORS: Readonly<Record<string, string>> = {
  AUTH_KEY_DUPLICATED: "the session was used from two places at once and Telegram invalidated it",
  AUTH_KEY_UNREGISTERED: "Telegram no longer knows this session (logged out or expired)",
  SESSION_REVOKED: "the session was terminated (logged out, or ended from another device)",
  USER_DEACTIVATED: "the account was deleted or deactivated",
  USER_DEACTIVATED_BAN: "the account was banned by Telegram",
};

/** `e` as an AccountLostError when it is an account-terminal RPC error, else undefined. */
export function accountLost(e: unknown): AccountLostError | undefined {
  if (e instanceof AccountLostError) return e;
  if (!(e instanceof errors.RPCError)) return undefined;
  const explanation = ACCOUNT_TERMINAL_ERRORS[e.errorMessage];
  return explanation === undefined ? undefined : new AccountLostError(e.errorMessage, explanation);
}

/** The command that makes a new session for `agent`. */
export function loginCommand(agent: string): string {
  return `npm run login -- ${agent}`;
}
