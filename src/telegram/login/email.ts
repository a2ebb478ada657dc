/**
 * Setting up a login e-mail inside a login, as Telegram's own apps do when auth.sendCode answers
 * sentCodeTypeSetUpEmailRequired: a code goes to the address the user types
 * (account.sendVerifyEmailCode, purpose emailVerifyPurposeLoginSetup with the phone and its code
 * hash), the user proves it (account.verifyEmail), and Telegram answers
 * account.emailVerifiedLogin: the login code was just sent — the login continues with it.
 * Bounded: 3 addresses, 3 codes per address.
 */
import { Api } from "telegram";
import { explain, rpcName, type LoginContext } from "./context";
import { LoginError } from "./login-error";

const TRIES = 3;
const ADDRESS = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Sets the account's login e-mail up; returns the login code Telegram sent afterwards. */
export async function setUpLoginEmail(
  ctx: LoginContext,
  phone: string,
  phoneCodeHash: string,
): Promise<Api.auth.TypeSentCode> {
  const { o } = ctx;
  o.out(
    "Telegram wants a login e-mail for this account before it sends a code. Give an address you can read now: Telegram sends a code there.",
  );
  const purpose = new Api.EmailVerifyPurposeLoginSetup({ phoneNumber: phone, phoneCodeHash });
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    const email = (await o.prompts.text("E-mail address for logging in")).trim();
    if (!ADDRESS.test(email)) {
      o.out("That is not an e-mail address.");
      continue;
    }
    let sent: Api.account.SentEmailCode;
    try {
      // Past invoke(): GramJS's entity cache cannot take this answer (see sendDirect).
      sent = await ctx.call(new Api.account.SendVerifyEmailCode({ purpose, email }), { direct: true });
    } catch (e) {
      const name = rpcName(e);
      if (name === "EMAIL_INVALID" || name === "EMAIL_NOT_ALLOWED") {
        o.out(`Telegram does not accept that address (${name}).`);
        continue;
      }
      if (name === "PHONE_CODE_EXPIRED")
        throw new LoginError("The login expired while the e-mail was being set up; run the login again.");
      throw explain(e);
    }
    o.out(`Telegram sent a code to ${sent.emailPattern}.`);
    return verify(ctx, purpose, sent.emailPattern);
  }
  throw new LoginError(`No usable e-mail address in ${TRIES} tries; run the login again.`);
}

async function verify(
  ctx: LoginContext,
  purpose: Api.EmailVerifyPurposeLoginSetup,
  pattern: string,
): Promise<Api.auth.TypeSentCode> {
  const { o } = ctx;
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    const code = (await o.prompts.text(`Code from the e-mail to ${pattern}`)).replace(/[\s-]/g, "");
    const left = TRIES - attempt;
    const wrong = () => {
      if (left > 0) o.out(`That code is wrong (${left} ${left === 1 ? "try" : "tries"} left).`);
    };
    if (!/^\d+$/.test(code)) {
      wrong();
      continue;
    }
    let res: Api.account.TypeEmailVerified;
    try {
      res = await ctx.call(
        new Api.account.VerifyEmail({ purpose, verification: new Api.EmailVerificationCode({ code }) }),
      );
    } catch (e) {
      const name = rpcName(e);
      if (name === "CODE_INVALID" || name === "EMAIL_CODE_INVALID") {
        wrong();
        continue;
      }
      if (name === "EMAIL_VERIFY_EXPIRED")
        throw new LoginError("The e-mail code expired; run the login again.");
      throw explain(e);
    }
    if (!(res instanceof Api.account.EmailVerifiedLogin))
      throw new LoginError("Telegram verified the e-mail but sent no login code; run the login again.");
    o.out(`${res.email} is now this account's login e-mail.`);
    return res.sentCode;
  }
  throw new LoginError(`The e-mail code was wrong ${TRIES} times; run the login again.`);
}
