/**
 * The code step of a login: telling the user where the code went, reading it in the form that
 * code takes (digits; an SMS's secret word or phrase; an e-mail code, proved with
 * `email_verification`), offering the next way Telegram names (`next_type`: an empty answer asks
 * for the code by SMS or call), a fresh auth.sendCode when the code expired (auth.resendCode
 * cannot revive an expired hash), and the login e-mail set up when Telegram requires one. Every
 * loop is bounded (LOGIN_LIMITS).
 */
import { Api } from "telegram";
import { explain, rpcName, userOf, type LoginContext } from "./context";
import { LoginError } from "./login-error";
import { setUpLoginEmail } from "./email";
import { checkPassword } from "./password";

/**
 * Tries per code, per password, per phone number; new codes (resent, or fresh after expiry);
 * login e-mail set-ups in one login (Telegram asking for one again after a set-up is not a loop
 * to follow for ever).
 */
export const LOGIN_LIMITS = {
  codeTries: 3,
  passwordTries: 3,
  phoneTries: 3,
  resends: 2,
  emailSetups: 2,
} as const;

/** Answers that mean "that code is wrong" (also an e-mail code, and an e-mail verification code). */
const WRONG_CODE = new Set(["PHONE_CODE_INVALID", "PHONE_CODE_EMPTY", "EMAIL_CODE_INVALID", "CODE_INVALID"]);

/** How a sent code is typed and proved. */
type CodeForm = "digits" | "word" | "phrase" | "email";

/** auth.sendCode for `phone`. */
export function requestCode(ctx: LoginContext, phone: string): Promise<Api.auth.TypeSentCode> {
  const { o } = ctx;
  return ctx.call(
    new Api.auth.SendCode({
      phoneNumber: phone,
      apiId: o.apiId,
      apiHash: o.apiHash,
      settings: new Api.CodeSettings({}),
    }),
  );
}

function formOf(type: Api.auth.TypeSentCodeType): CodeForm {
  if (type instanceof Api.auth.SentCodeTypeSmsWord) return "word";
  if (type instanceof Api.auth.SentCodeTypeSmsPhrase) return "phrase";
  if (type instanceof Api.auth.SentCodeTypeEmailCode) return "email";
  return "digits";
}

/** "by SMS", "by a phone call", … — the way `next_type` names. */
function wayOf(next: Api.auth.TypeCodeType): string {
  if (next instanceof Api.auth.CodeTypeCall) return "by a phone call";
  if (next instanceof Api.auth.CodeTypeFlashCall || next instanceof Api.auth.CodeTypeMissedCall)
    return "by a missed call";
  if (next instanceof Api.auth.CodeTypeFragmentSms) return "to your Fragment number";
  return "by SMS";
}

/** Tells the user where the code went (and how to get it another way). */
function announce(ctx: LoginContext, sent: Api.auth.SentCode): void {
  const { o } = ctx;
  const t = sent.type;
  const starts = (b: string | null | undefined) => (b ? `, starting with "${b}"` : "");
  if (t instanceof Api.auth.SentCodeTypeApp)
    o.out('Telegram sent a login code to your Telegram app (a message from "Telegram" on another device).');
  else if (t instanceof Api.auth.SentCodeTypeSms || t instanceof Api.auth.SentCodeTypeFirebaseSms)
    o.out("Telegram sent a login code by SMS.");
  else if (t instanceof Api.auth.SentCodeTypeCall) o.out("Telegram is calling with the login code.");
  else if (t instanceof Api.auth.SentCodeTypeEmailCode)
    o.out(`Telegram sent a login code to ${t.emailPattern}.`);
  else if (t instanceof Api.auth.SentCodeTypeSmsWord)
    o.out(`Telegram sent an SMS with a secret word${starts(t.beginning)}: that word is the code.`);
  else if (t instanceof Api.auth.SentCodeTypeSmsPhrase)
    o.out(`Telegram sent an SMS with a secret phrase${starts(t.beginning)}: that phrase is the code.`);
  else if (t instanceof Api.auth.SentCodeTypeFragmentSms)
    o.out("Telegram sent a login code to your Fragment number.");
  else o.out("Telegram sent a login code.");
  if (sent.nextType) {
    const after = sent.timeout ? ` within ${sent.timeout} s` : "";
    o.out(`No code${after}? Press Enter without one to have it sent ${wayOf(sent.nextType)}.`);
  }
}

function question(sent: Api.auth.SentCode): string {
  const t = sent.type;
  const base =
    t instanceof Api.auth.SentCodeTypeSmsWord
      ? "Login code (the secret word from the SMS)"
      : t instanceof Api.auth.SentCodeTypeSmsPhrase
        ? "Login code (the secret phrase from the SMS)"
        : t instanceof Api.auth.SentCodeTypeEmailCode
          ? `Login code (from the e-mail to ${t.emailPattern})`
          : "Login code";
  return sent.nextType ? `${base}, or Enter to get it ${wayOf(sent.nextType)}` : base;
}

/** The answer as Telegram wants it for this form, or undefined when it cannot be a code of that form. */
function normalise(answer: string, form: CodeForm): string | undefined {
  if (form === "word") {
    const w = answer.trim();
    return w === "" || /\s/.test(w) ? undefined : w;
  }
  if (form === "phrase") {
    const p = answer.trim().replace(/\s+/g, " ");
    return p === "" ? undefined : p;
  }
  const digits = answer.replace(/[\s-]/g, "");
  return /^\d+$/.test(digits) ? digits : undefined;
}

function signInRequest(phone: string, hash: string, form: CodeForm, code: string): Api.auth.SignIn {
  // An e-mail code is proved with email_verification, never as a phone code.
  if (form === "email")
    return new Api.auth.SignIn({
      phoneNumber: phone,
      phoneCodeHash: hash,
      emailVerification: new Api.EmailVerificationCode({ code }),
    });
  return new Api.auth.SignIn({ phoneNumber: phone, phoneCodeHash: hash, phoneCode: code });
}

/** From a sent code to the signed-in user: the code (resent, renewed, by e-mail), then 2FA. */
export async function enterCode(
  ctx: LoginContext,
  phone: string,
  first: Api.auth.SentCode,
): Promise<Api.User> {
  const { o } = ctx;
  let sent = first;
  let wrong = 0;
  let renewals = 0;
  let setups = 0;
  /** Telegram's answer for a new code (resent or fresh): the next state, or the user when it signed in already. */
  const adopt = (next: Api.auth.TypeSentCode): Api.User | undefined => {
    if (next instanceof Api.auth.SentCodeSuccess) return userOf(next.authorization);
    sent = next;
    wrong = 0;
    return undefined;
  };
  const renew = async (): Promise<Api.User | undefined> => {
    if (renewals >= LOGIN_LIMITS.resends)
      throw new LoginError("The code expired again; run the login again later.");
    renewals++;
    try {
      return adopt(await requestCode(ctx, phone));
    } catch (e) {
      throw explain(e);
    }
  };
  for (;;) {
    if (sent.type instanceof Api.auth.SentCodeTypeSetUpEmailRequired) {
      if (setups >= LOGIN_LIMITS.emailSetups)
        throw new LoginError(
          `Telegram asked for a login e-mail again after ${setups} set-ups; set one up in a Telegram app first, then run the login again.`,
        );
      setups++;
      const done = adopt(await setUpLoginEmail(ctx, phone, sent.phoneCodeHash));
      if (done) return done;
      continue;
    }
    announce(ctx, sent);
    const form = formOf(sent.type);
    const answer = await o.prompts.text(question(sent));
    if (answer.trim() === "" && sent.nextType) {
      // "No code": ask Telegram for it the next way it named.
      if (renewals >= LOGIN_LIMITS.resends)
        throw new LoginError("No code came after asking again; check the phone and run the login later.");
      renewals++;
      try {
        const done = adopt(
          await ctx.call(new Api.auth.ResendCode({ phoneNumber: phone, phoneCodeHash: sent.phoneCodeHash })),
        );
        if (done) return done;
      } catch (e) {
        const name = rpcName(e);
        if (name === "PHONE_CODE_EXPIRED") {
          renewals--; // renew() counts it
          o.out("The code expired meanwhile; asking for a new one.");
          const done = await renew();
          if (done) return done;
        } else if (name === "SEND_CODE_UNAVAILABLE") {
          o.out("Telegram has no other way to send this code; enter the one it sent.");
          sent = new Api.auth.SentCode({ type: sent.type, phoneCodeHash: sent.phoneCodeHash });
        } else throw explain(e);
      }
      continue;
    }
    const code = normalise(answer, form);
    let result: Api.auth.TypeAuthorization;
    try {
      // Not a code of this form: not worth a request (each wrong code counts towards Telegram's limits).
      if (code === undefined) throw new NotACode();
      result = await ctx.call(signInRequest(phone, sent.phoneCodeHash, form, code));
    } catch (e) {
      const name = e instanceof NotACode ? "PHONE_CODE_INVALID" : rpcName(e);
      if (name !== undefined && WRONG_CODE.has(name)) {
        wrong++;
        if (wrong >= LOGIN_LIMITS.codeTries)
          throw new LoginError(`The code was wrong ${wrong} times; run the login again to get a new one.`);
        const left = LOGIN_LIMITS.codeTries - wrong;
        o.out(`That code is wrong (${left} ${left === 1 ? "try" : "tries"} left).`);
        continue;
      }
      if (name === "PHONE_CODE_EXPIRED") {
        if (renewals >= LOGIN_LIMITS.resends)
          throw new LoginError("The code expired again; run the login again later.");
        if (!(await o.prompts.confirm("The code has expired. Send a new one?", true)))
          throw new LoginError("Login cancelled: the code expired.");
        // An expired code's hash is spent (auth.resendCode answers PHONE_CODE_EXPIRED too): start over.
        const done = await renew();
        if (done) return done;
        continue;
      }
      if (name === "SESSION_PASSWORD_NEEDED") return checkPassword(ctx);
      throw explain(e);
    }
    if (result instanceof Api.auth.AuthorizationSignUpRequired) {
      throw new LoginError(
        `No Telegram account uses ${phone}. Create one in a Telegram app first, then log in here.`,
      );
    }
    return userOf(result);
  }
}

/** A typed "code" that cannot be one: counted as a wrong code without asking Telegram. */
class NotACode extends Error {}
