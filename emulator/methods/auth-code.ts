/**
 * Login by code: auth.sendCode, auth.resendCode, auth.signIn, and the login e-mail set up inside
 * a login (account.sendVerifyEmailCode, account.verifyEmail with emailVerifyPurposeLoginSetup).
 * See auth-server.ts for the rules.
 */
import { Api } from "telegram";
import type { SentCodeInfo } from "../auth-server";
import { RpcFault } from "../rpc-fault";
import type { EmuUser } from "../types";
import type { TlViews } from "../tl-views";
import { defineAuthMethod } from "./auth-method";

/** How long the client should wait before asking for another delivery of the code, seconds. */
const RESEND_TIMEOUT_S = 60;

export const sendCode = defineAuthMethod("auth.SendCode", Api.auth.SendCode, (ctx, req) => {
  ctx.auth.checkApp(req.apiId, req.apiHash);
  return sentCode(ctx.auth.sendCode(ctx.key, req.phoneNumber));
});

export const resendCode = defineAuthMethod("auth.ResendCode", Api.auth.ResendCode, (ctx, req) => {
  return sentCode(ctx.auth.resendCode(ctx.key, req.phoneNumber, req.phoneCodeHash));
});

export const signIn = defineAuthMethod("auth.SignIn", Api.auth.SignIn, (ctx, req) => {
  // A request read back from TL bytes has absent flags as null.
  const verification = req.emailVerification ?? undefined;
  if (verification !== undefined && !(verification instanceof Api.EmailVerificationCode))
    throw new RpcFault("EMAIL_VERIFICATION_INVALID");
  const r = ctx.auth.signIn(ctx.key, req.phoneNumber, req.phoneCodeHash, {
    ...(req.phoneCode != null ? { phoneCode: req.phoneCode } : {}),
    ...(verification ? { emailCode: verification.code } : {}),
  });
  if (!r.ok) return new Api.auth.AuthorizationSignUpRequired({});
  return authorization(ctx.views, r.user);
});

export const sendVerifyEmailCode = defineAuthMethod(
  "account.SendVerifyEmailCode",
  Api.account.SendVerifyEmailCode,
  (ctx, req) => {
    const purpose = loginSetup(req.purpose);
    const sent = ctx.auth.sendSetupEmailCode(ctx.key, purpose.phoneNumber, purpose.phoneCodeHash, req.email);
    return new Api.account.SentEmailCode({ emailPattern: sent.emailPattern, length: sent.length });
  },
);

export const verifyEmail = defineAuthMethod("account.VerifyEmail", Api.account.VerifyEmail, (ctx, req) => {
  const purpose = loginSetup(req.purpose);
  if (!(req.verification instanceof Api.EmailVerificationCode))
    throw new RpcFault("EMAIL_VERIFICATION_INVALID");
  const r = ctx.auth.verifySetupEmail(
    ctx.key,
    purpose.phoneNumber,
    purpose.phoneCodeHash,
    req.verification.code,
  );
  return new Api.account.EmailVerifiedLogin({ email: r.email, sentCode: sentCode(r.sent) });
});

/** Only the login set-up purpose is emulated (changing a login e-mail needs a signed-in account). */
function loginSetup(purpose: Api.TypeEmailVerifyPurpose): Api.EmailVerifyPurposeLoginSetup {
  if (!(purpose instanceof Api.EmailVerifyPurposeLoginSetup))
    throw new RpcFault("EMULATOR_UNIMPLEMENTED", 400, `email verify purpose ${purpose.className}`);
  return purpose;
}

/** auth.SentCode for a code the server just sent (or, for "email-setup", could not send yet). */
function sentCode(s: SentCodeInfo): Api.auth.SentCode {
  const nextType =
    s.next === undefined
      ? undefined
      : s.next === "call"
        ? new Api.auth.CodeTypeCall()
        : s.next === "app" || s.next === "email"
          ? undefined
          : new Api.auth.CodeTypeSms();
  return new Api.auth.SentCode({
    type: sentCodeType(s),
    phoneCodeHash: s.hash,
    ...(nextType ? { nextType, timeout: RESEND_TIMEOUT_S } : {}),
  });
}

function sentCodeType(s: SentCodeInfo): Api.auth.TypeSentCodeType {
  switch (s.kind) {
    case "app":
      return new Api.auth.SentCodeTypeApp({ length: s.length });
    case "sms":
      return new Api.auth.SentCodeTypeSms({ length: s.length });
    case "call":
      return new Api.auth.SentCodeTypeCall({ length: s.length });
    case "sms-word":
      return new Api.auth.SentCodeTypeSmsWord({
        ...(s.beginning !== undefined ? { beginning: s.beginning } : {}),
      });
    case "sms-phrase":
      return new Api.auth.SentCodeTypeSmsPhrase({
        ...(s.beginning !== undefined ? { beginning: s.beginning } : {}),
      });
    case "email":
      return new Api.auth.SentCodeTypeEmailCode({ emailPattern: s.emailPattern ?? "", length: s.length });
    case "email-setup":
      return new Api.auth.SentCodeTypeSetUpEmailRequired({});
  }
}

/** auth.Authorization for a user who just signed in. */
export function authorization(views: TlViews, user: EmuUser): Api.auth.Authorization {
  return new Api.auth.Authorization({ user: views.user(user, user.id) });
}
