/**
 * Logging a persona's account in: phone code (with 2FA) or QR code, then the session saved to
 * `sessions/<Agent>.session`. The auth requests are driven here, not by GramJS's `start()`, so
 * every loop has a bound (GramJS's own loop retries sign-in until a callback says stop — it has
 * earned accounts hour-long flood bans).
 *
 * Nothing secret ever reaches `out`: not the code, the password, the session string or the
 * API hash.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { Api, TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { StringSession } from "telegram/sessions/index.js";
import { systemClock } from "../runtime/clock.js";
import type { Clock } from "../types.js";
import { lockSession, SessionInUseError } from "./client.js";
import { explain, floodWait, rpcName, userOf, type LoginContext } from "./login-context.js";
import { humanDuration, LoginError } from "./login-error.js";
import { checkPassword } from "./login-password.js";
import type { LoginPrompts } from "./login-prompts.js";
import { qrLogin } from "./login-qr.js";
import { writeSessionFile } from "./session-file.js";

export { LoginError } from "./login-error.js";
export type { LoginContext } from "./login-context.js";

/** Tries per code, per password, per phone number; resends of an expired code. */
export const LOGIN_LIMITS = { codeTries: 3, passwordTries: 3, phoneTries: 3, resends: 2 } as const;

export interface LoginOptions {
  /** The persona's name (for messages). */
  readonly agent: string;
  readonly sessionFile: string;
  readonly apiId: number;
  readonly apiHash: string;
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

/** Who the session is logged in as. */
export interface LoginResult {
  readonly name: string;
  readonly username: string | undefined;
  readonly id: string;
  /** True when the saved session was still signed in and nothing was done. */
  readonly alreadyLoggedIn: boolean;
}

/** Logs the persona in (or finds it logged in) and saves the session. Throws LoginError. */
export async function logIn(o: LoginOptions): Promise<LoginResult> {
  mkdirSync(dirname(o.sessionFile), { recursive: true, mode: 0o700 });
  let release: () => void;
  try {
    release = lockSession(o.sessionFile);
  } catch (e) {
    if (!(e instanceof SessionInUseError)) throw new LoginError(e instanceof Error ? e.message : String(e));
    throw new LoginError(`${o.agent}'s session is in use (${e.path}: process ${e.pid} is using this session). Stop that process (npm start) first, then log in again.`);
  }
  try {
    if (!o.force && existsSync(o.sessionFile)) {
      const me = await savedSessionUser(o);
      if (me) return { ...describeUser(me), alreadyLoggedIn: true };
    }
    const client = newClient(o, new StringSession(""));
    try {
      const ctx = context(client, o);
      await connect(ctx);
      const user = o.qr ? await qrLogin(ctx) : await codeLogin(ctx);
      const session = (client.session as StringSession).save();
      writeSessionFile(o.sessionFile, session);
      return { ...describeUser(user), alreadyLoggedIn: false };
    } finally {
      await client.destroy().catch(() => undefined);
    }
  } finally {
    release();
  }
}

function newClient(o: LoginOptions, session: StringSession): TelegramClient {
  return new TelegramClient(session, o.apiId, o.apiHash, {
    baseLogger: new Logger(LogLevel.NONE), // errors are reported here, once, in words
    floodSleepThreshold: 0, // every flood wait is shown to the user, never slept on silently
    connectionRetries: 3,
  });
}

function context(client: TelegramClient, o: LoginOptions): LoginContext {
  const clock = o.clock ?? systemClock;
  const limit = o.requestTimeoutMs ?? 60_000;
  return {
    client,
    o,
    clock,
    async call(request) {
      let timer: unknown;
      const timeout = new Promise<never>((_, reject) => {
        timer = clock.setTimeout(
          () => reject(new LoginError(`Telegram did not answer ${request.className} within ${humanDuration(limit / 1000)}; check the connection and try again.`)),
          limit,
        );
      });
      try {
        return await Promise.race([client.invoke(request), timeout]);
      } catch (e) {
        throw floodWait(e, request.className) ?? e;
      } finally {
        clock.clearTimeout(timer);
      }
    },
  };
}

async function connect(ctx: LoginContext): Promise<void> {
  try {
    await ctx.client.connect();
  } catch (e) {
    throw new LoginError(`Could not connect to Telegram: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!ctx.client.connected) throw new LoginError("Could not connect to Telegram; check the network and try again.");
}

/** The user of the saved session, or undefined when it is not signed in any more. */
async function savedSessionUser(o: LoginOptions): Promise<Api.User | undefined> {
  let session: StringSession;
  try {
    session = new StringSession(readFileSync(o.sessionFile, "utf8").trim());
  } catch {
    // Never echo the file's content: it is the account's key.
    o.out(`${o.sessionFile} does not hold a valid session; logging in again.`);
    return undefined;
  }
  const client = newClient(o, session);
  try {
    const ctx = context(client, o);
    await connect(ctx);
    if (!(await client.checkAuthorization())) {
      o.out(`The saved session in ${o.sessionFile} is no longer signed in; logging in again.`);
      return undefined;
    }
    return await client.getMe();
  } finally {
    await client.destroy().catch(() => undefined);
  }
}

/** Tells the user where the code went. */
function announceCode(o: LoginOptions, type: Api.auth.TypeSentCodeType): void {
  if (type instanceof Api.auth.SentCodeTypeApp) o.out("Telegram sent a login code to your Telegram app (a message from \"Telegram\" on another device).");
  else if (type instanceof Api.auth.SentCodeTypeSms) o.out("Telegram sent a login code by SMS.");
  else if (type instanceof Api.auth.SentCodeTypeCall) o.out("Telegram is calling with the login code.");
  else if (type instanceof Api.auth.SentCodeTypeEmailCode) o.out(`Telegram sent a login code to ${type.emailPattern}.`);
  else if (type instanceof Api.auth.SentCodeTypeSetUpEmailRequired) {
    throw new LoginError("Telegram wants a login e-mail set up for this account first; do that in an official Telegram app, then try again.");
  } else o.out("Telegram sent a login code.");
}

async function codeLogin(ctx: LoginContext): Promise<Api.User> {
  const { o } = ctx;
  for (let phoneTry = 1; ; phoneTry++) {
    const phone = (await o.prompts.text("Phone number of the account (international format, e.g. +15551234567)", o.defaultPhone !== undefined ? { default: o.defaultPhone } : {})).replace(/[\s\-.()]/g, "");
    if (phone === "") {
      if (phoneTry >= LOGIN_LIMITS.phoneTries) throw new LoginError("No phone number given.");
      o.out("A phone number is needed (+ and the country code).");
      continue;
    }
    let sent: Api.auth.TypeSentCode;
    try {
      sent = await ctx.call(new Api.auth.SendCode({ phoneNumber: phone, apiId: o.apiId, apiHash: o.apiHash, settings: new Api.CodeSettings({}) }));
    } catch (e) {
      if (rpcName(e) !== "PHONE_NUMBER_INVALID") throw explain(e);
      if (phoneTry >= LOGIN_LIMITS.phoneTries) throw new LoginError(`Telegram did not accept a phone number in ${LOGIN_LIMITS.phoneTries} tries.`);
      o.out(`Telegram says "${phone}" is not a valid phone number (PHONE_NUMBER_INVALID). Use + and the country code.`);
      continue;
    }
    if (sent instanceof Api.auth.SentCodeSuccess) return userOf(sent.authorization);
    announceCode(o, sent.type);
    return enterCode(ctx, phone, sent.phoneCodeHash);
  }
}

/** A typed "code" that is not digits: counted as a wrong code without asking Telegram. */
class NotDigits extends Error {}

async function enterCode(ctx: LoginContext, phone: string, firstHash: string): Promise<Api.User> {
  const { o } = ctx;
  let hash = firstHash;
  let wrong = 0;
  let resends = 0;
  for (;;) {
    const code = (await o.prompts.text("Login code")).replace(/[\s-]/g, "");
    let result: Api.auth.TypeAuthorization;
    try {
      // Not digits: not worth a request (each wrong code counts towards Telegram's limits).
      if (!/^\d+$/.test(code)) throw new NotDigits();
      result = await ctx.call(new Api.auth.SignIn({ phoneNumber: phone, phoneCodeHash: hash, phoneCode: code }));
    } catch (e) {
      const name = e instanceof NotDigits ? "PHONE_CODE_INVALID" : rpcName(e);
      if (name === "PHONE_CODE_INVALID" || name === "PHONE_CODE_EMPTY") {
        wrong++;
        if (wrong >= LOGIN_LIMITS.codeTries) throw new LoginError(`The code was wrong ${wrong} times; run the login again to get a new one.`);
        o.out(`That code is wrong (${LOGIN_LIMITS.codeTries - wrong} ${LOGIN_LIMITS.codeTries - wrong === 1 ? "try" : "tries"} left).`);
        continue;
      }
      if (name === "PHONE_CODE_EXPIRED") {
        if (resends >= LOGIN_LIMITS.resends) throw new LoginError("The code expired again; run the login again later.");
        if (!(await o.prompts.confirm("The code has expired. Send a new one?", true))) throw new LoginError("Login cancelled: the code expired.");
        let again: Api.auth.TypeSentCode;
        try {
          again = await ctx.call(new Api.auth.ResendCode({ phoneNumber: phone, phoneCodeHash: hash }));
        } catch (re) {
          throw explain(re);
        }
        if (again instanceof Api.auth.SentCodeSuccess) return userOf(again.authorization);
        announceCode(o, again.type);
        hash = again.phoneCodeHash;
        resends++;
        wrong = 0;
        continue;
      }
      if (name === "SESSION_PASSWORD_NEEDED") return checkPassword(ctx);
      throw explain(e);
    }
    if (result instanceof Api.auth.AuthorizationSignUpRequired) {
      throw new LoginError(`No Telegram account uses ${phone}. Create one in a Telegram app first, then log in here.`);
    }
    return userOf(result);
  }
}

function describeUser(u: Api.User): Omit<LoginResult, "alreadyLoggedIn"> {
  const name = [u.firstName, u.lastName].filter((x) => x !== undefined && x !== "").join(" ") || "(no name)";
  return { name, username: u.username ?? undefined, id: u.id.toString() };
}
