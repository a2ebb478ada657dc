/**
 * What the login steps (code, password, QR) share, and how they read Telegram's answers.
 */
import { Api, errors, type TelegramClient } from "telegram";
import type { Clock } from "../../base/types";
import { humanDuration, LoginError } from "./login-error";
import type { ClientIdentity } from "../../config/client-identity";
import type { LoginPrompts } from "./prompts";

export interface LoginOptions {
  /** The persona's name (for messages). */
  readonly agent: string;
  readonly sessionFile: string;
  readonly apiId: number;
  readonly apiHash: string;
  /** How the session introduces itself in the account's device list (default: this project and its version). */
  readonly identity?: ClientIdentity;
  /** Offered as the answer to "phone number" (the persona's `# Agent Phone`). */
  readonly defaultPhone?: string;
  /** Log in by scanning a QR code instead of a phone code. */
  readonly qr?: boolean;
  /** Log in again even when the saved session still works. */
  readonly force?: boolean;
  readonly prompts: LoginPrompts;
  /** Progress for the user, one message per call. */
  readonly out: (text: string) => void;
  readonly clock?: Clock;
  /** How long a QR login waits for a scan (default 3 minutes). */
  readonly qrTimeoutMs?: number;
  /** How long one request may go unanswered (default 60 s). */
  readonly requestTimeoutMs?: number;
}

/** What the login steps share. */
export interface LoginContext {
  readonly client: TelegramClient;
  readonly o: LoginOptions;
  readonly clock: Clock;
  /**
   * Invokes a request with a time limit; a flood wait becomes a LoginError naming the wait.
   * `direct`: hand it to the MTProto sender itself, past GramJS's invoke() — for answers that
   * invoke() cannot take (see sendDirect).
   */
  call<R extends Api.AnyRequest>(request: R, o?: { readonly direct?: boolean }): Promise<R["__response"]>;
}

/**
 * Sends `request` on the client's MTProto sender, skipping GramJS's invoke(). GramJS 2.26.22's
 * invoke() passes every answer to its entity cache, which takes any object with a numeric
 * `length` for a list of entities: account.sentEmailCode{email_pattern, length} makes invoke()
 * throw "entities is not iterable" after Telegram already sent the e-mail. The sender maps RPC
 * errors itself, so nothing else is lost (flood waits are never slept on in a login anyway).
 */
export function sendDirect<R extends Api.AnyRequest>(
  client: TelegramClient,
  request: R,
): Promise<R["__response"]> {
  const sender = (client as unknown as { _sender?: { send(r: Api.AnyRequest): Promise<unknown> } })._sender;
  if (!sender) return Promise.reject(new LoginError("Not connected to Telegram; try again."));
  return sender.send(request) as Promise<R["__response"]>;
}

/** A FLOOD_WAIT as the user should read it, or undefined for any other error. */
export function floodWait(e: unknown, method: string): LoginError | undefined {
  if (!(e instanceof errors.FloodWaitError || e instanceof errors.FloodTestPhoneWaitError)) return undefined;
  return new LoginError(
    `Telegram asks to wait ${humanDuration(e.seconds)} before trying again (FLOOD_WAIT_${e.seconds} on ${method}). ` +
      `Logging in again sooner only makes the wait longer.`,
  );
}

/** The RPC error name of `e`, or undefined. */
export function rpcName(e: unknown): string | undefined {
  return e instanceof errors.RPCError ? e.errorMessage : undefined;
}

/** An RPC error the user can act on, in words; anything else as it is. */
export function explain(e: unknown): unknown {
  // A flood wait met outside ctx.call (e.g. GramJS's own help.getConfig during a DC move).
  const flood = floodWait(e, "a login request");
  if (flood) return flood;
  const name = rpcName(e);
  if (name === undefined) return e;
  const known: Record<string, string> = {
    API_ID_INVALID:
      "Telegram rejected TELEGRAM_API_ID / TELEGRAM_API_HASH (API_ID_INVALID): copy both again from https://my.telegram.org → API development tools.",
    API_ID_PUBLISHED_FLOOD:
      "Telegram refuses this API id (API_ID_PUBLISHED_FLOOD): create your own app at https://my.telegram.org.",
    PHONE_NUMBER_BANNED: "This phone number is banned from Telegram (PHONE_NUMBER_BANNED).",
    PHONE_NUMBER_FLOOD:
      "Too many login attempts for this number (PHONE_NUMBER_FLOOD); wait a day and try again.",
    PHONE_PASSWORD_FLOOD: "Too many password attempts (PHONE_PASSWORD_FLOOD); wait and try again later.",
    AUTH_RESTART: "Telegram asked to start the login over (AUTH_RESTART); run the command again.",
    PHONE_NUMBER_UNOCCUPIED:
      "No Telegram account uses this phone number (PHONE_NUMBER_UNOCCUPIED). Create one in a Telegram app first.",
    EMAIL_NOT_ALLOWED: "Telegram does not accept this e-mail address for logging in (EMAIL_NOT_ALLOWED).",
    SESSION_PASSWORD_NEEDED: "The account needs its 2FA password.",
  };
  return new LoginError(known[name] ?? `Telegram refused the login: ${name}.`);
}

/** The user of a successful authorization. */
export function userOf(auth: Api.auth.TypeAuthorization): Api.User {
  if (auth instanceof Api.auth.Authorization && auth.user instanceof Api.User) return auth.user;
  throw new LoginError(
    `Telegram answered the login with ${auth.className}; this account cannot be used here.`,
  );
}
