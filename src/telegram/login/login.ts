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
import { systemClock } from "../../base/clock";
import { errorMessage } from "../../base/error-message";
import { TimeoutError, withTimeout } from "../../base/timeout";
import { lockSession, SessionInUseError } from "../connection/client";
import { clientIdentity } from "../../config/client-identity";
import { accountLost } from "../connection/account-errors";
import { enterCode, LOGIN_LIMITS, requestCode } from "./code";
import {
  explain,
  floodWait,
  rpcName,
  sendDirect,
  userOf,
  type LoginContext,
  type LoginOptions,
} from "./context";
import { humanDuration, LoginError } from "./login-error";
import { qrLogin } from "./qr";
import { writeSessionFile } from "../connection/session-file";

export { LoginError } from "./login-error";

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
    if (!(e instanceof SessionInUseError)) throw new LoginError(errorMessage(e));
    throw new LoginError(
      `${o.agent}'s session is in use (${e.file}: process ${e.pid} is using this session). Stop that process (npm start) first, then log in again.`,
    );
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
    ...(o.identity ?? clientIdentity()), // the device list shows this project, not the machine's OS
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
    async call(request, co) {
      try {
        return await withTimeout(
          co?.direct ? sendDirect(client, request) : client.invoke(request),
          limit,
          request.className,
          clock,
        );
      } catch (e) {
        if (e instanceof TimeoutError) {
          throw new LoginError(
            `Telegram did not answer ${request.className} within ${humanDuration(limit / 1000)}; check the connection and try again.`,
          );
        }
        throw floodWait(e, request.className) ?? e;
      }
    },
  };
}

async function connect(ctx: LoginContext): Promise<void> {
  const limit = ctx.o.requestTimeoutMs ?? 60_000;
  try {
    await withTimeout(ctx.client.connect(), limit, "connect", ctx.clock);
  } catch (e) {
    const why =
      e instanceof TimeoutError ? `no connection within ${humanDuration(limit / 1000)}` : errorMessage(e);
    throw new LoginError(`Could not connect to Telegram: ${why}`);
  }
  if (!ctx.client.connected)
    throw new LoginError("Could not connect to Telegram; check the network and try again.");
}

/**
 * The user of the saved session, or undefined when Telegram says it is not signed in any more.
 * The check is our own bounded updates.getState (GramJS's checkAuthorization answers "no" to a
 * network failure or a flood wait too, and has no time limit): only an account-terminal answer
 * (the 401 class, AUTH_KEY_DUPLICATED) means "log in again"; anything else stops the login with
 * a named error and nothing sent — a new code costs a login attempt and a needless authorization.
 */
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
  const unsure = (why: string) =>
    new LoginError(
      `Could not check whether the saved session in ${o.sessionFile} still works: ${why} Nothing was changed and no code was asked for; ` +
        `try again when Telegram answers (or use --force to log in anew).`,
    );
  try {
    const ctx = context(client, o);
    try {
      await connect(ctx);
    } catch (e) {
      throw unsure(errorMessage(e));
    }
    let me: Api.TypeUser | undefined;
    try {
      await ctx.call(new Api.updates.GetState());
      [me] = await ctx.call(new Api.users.GetUsers({ id: [new Api.InputUserSelf()] }));
    } catch (e) {
      const lost = accountLost(e);
      if (lost) {
        o.out(
          `The saved session in ${o.sessionFile} is no longer signed in (${lost.code}: ${lost.explanation}); logging in again.`,
        );
        return undefined;
      }
      const name = rpcName(e);
      throw unsure(
        e instanceof LoginError
          ? e.message
          : name !== undefined
            ? `Telegram answered ${name}.`
            : `${errorMessage(e)}.`,
      );
    }
    if (!(me instanceof Api.User)) throw unsure("Telegram did not say who the session belongs to.");
    return me;
  } finally {
    await client.destroy().catch(() => undefined);
  }
}

async function codeLogin(ctx: LoginContext): Promise<Api.User> {
  const { o } = ctx;
  for (let phoneTry = 1; ; phoneTry++) {
    const phone = (
      await o.prompts.text(
        "Phone number of the account (international format, e.g. +15551234567)",
        o.defaultPhone !== undefined ? { default: o.defaultPhone } : {},
      )
    ).replace(/[\s\-.()]/g, "");
    if (phone === "") {
      if (phoneTry >= LOGIN_LIMITS.phoneTries) throw new LoginError("No phone number given.");
      o.out("A phone number is needed (+ and the country code).");
      continue;
    }
    let sent: Api.auth.TypeSentCode;
    try {
      sent = await requestCode(ctx, phone);
    } catch (e) {
      if (rpcName(e) !== "PHONE_NUMBER_INVALID") throw explain(e);
      if (phoneTry >= LOGIN_LIMITS.phoneTries)
        throw new LoginError(`Telegram did not accept a phone number in ${LOGIN_LIMITS.phoneTries} tries.`);
      o.out(
        `Telegram says "${phone}" is not a valid phone number (PHONE_NUMBER_INVALID). Use + and the country code.`,
      );
      continue;
    }
    if (sent instanceof Api.auth.SentCodeSuccess) return userOf(sent.authorization);
    return enterCode(ctx, phone, sent);
  }
}

function describeUser(u: Api.User): Omit<LoginResult, "alreadyLoggedIn"> {
  // From the wire an absent name is null, not undefined.
  const name = [u.firstName, u.lastName].filter((x) => x != null && x !== "").join(" ") || "(no name)";
  return { name, username: u.username ?? undefined, id: u.id.toString() };
}
