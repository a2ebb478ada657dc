/**
 * RPC errors that end a session for good: retrying cannot help, only logging in again can.
 *
 * Telegram's error classes: 401 UNAUTHORIZED means "the session is not authorized"
 * (AUTH_KEY_UNREGISTERED, AUTH_KEY_INVALID, USER_DEACTIVATED, SESSION_REVOKED, SESSION_EXPIRED,
 * AUTH_KEY_PERM_EMPTY, …). Every 401 is therefore terminal, named ones with words a person can
 * act on; AUTH_KEY_DUPLICATED (406) is the one terminal error outside that class.
 *
 * One 401 is not: SESSION_PASSWORD_NEEDED ("the 2FA password is needed"). During a login it is a
 * step (auth.signIn / a QR token answered it: ask for the password); on a running session it
 * answers one request that wants the password (a bot button that asks for it, an ownership
 * transfer) while the session itself still works. Stopping the persona and asking for a new
 * login would be wrong either way: it fails that one request (a 4xx: the task fails, the
 * persona goes on).
 */
import { errors } from "telegram";
import { AccountLostError } from "../../tasks/errors";

/** Each account-terminal RPC error we can explain, in words a person can act on. */
const ACCOUNT_TERMINAL_ERRORS: Readonly<Record<string, string>> = {
  AUTH_KEY_DUPLICATED: "the session was used from two places at once and Telegram invalidated it",
  AUTH_KEY_UNREGISTERED: "Telegram no longer knows this session (logged out or expired)",
  AUTH_KEY_INVALID: "Telegram no longer accepts this session's key",
  AUTH_KEY_PERM_EMPTY: "Telegram no longer accepts this session's key",
  SESSION_REVOKED: "the session was terminated (logged out, or ended from another device)",
  SESSION_EXPIRED: "the session expired (it was not used for too long, or Telegram ended it)",
  USER_DEACTIVATED: "the account was deleted or deactivated",
  USER_DEACTIVATED_BAN: "the account was banned by Telegram",
};

/** Telegram's error code for "this session is not authorized" (see the file comment). */
const UNAUTHORIZED = 401;
/** 401s that say nothing about the session (see the file comment). */
const NOT_TERMINAL = new Set(["SESSION_PASSWORD_NEEDED"]);

/** `e` as an AccountLostError when it is an account-terminal RPC error, else undefined. */
export function accountLost(e: unknown): AccountLostError | undefined {
  if (e instanceof AccountLostError) return e;
  if (!(e instanceof errors.RPCError) || NOT_TERMINAL.has(e.errorMessage)) return undefined;
  const explanation = ACCOUNT_TERMINAL_ERRORS[e.errorMessage];
  if (explanation !== undefined) return new AccountLostError(e.errorMessage, explanation);
  // Any other 401: the session is not authorized any more, whatever Telegram calls it.
  if (e.code === UNAUTHORIZED)
    return new AccountLostError(e.errorMessage, "Telegram says this session is no longer authorized");
  return undefined;
}

/**
 * A word as a POSIX shell reads it back: as it is when it holds only safe characters, else in
 * single quotes (a quote inside written '\''), so a printed command can be pasted and run.
 */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/** The command that makes a new session for `agent`, ready to paste (a name with a space is quoted). */
export function loginCommand(agent: string): string {
  return `npm run login -- ${shellWord(agent)}`;
}
