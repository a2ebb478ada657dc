/**
 * Login by phone code: auth.sendCode, auth.resendCode, auth.signIn (see auth-server.ts for
 * the rules).
 */
import { Api } from "telegram";
import type { EmuUser } from "../types.js";
import type { TlViews } from "../tl-views.js";
import { defineAuthMethod } from "./auth-method.js";

/** How long the client should wait before asking for another delivery of the code, seconds. */
const RESEND_TIMEOUT_S = 60;

export const sendCode = defineAuthMethod("auth.SendCode", Api.auth.SendCode, (ctx, req) => {
  ctx.auth.checkApp(req.apiId, req.apiHash);
  const sent = ctx.auth.sendCode(ctx.key, req.phoneNumber);
  return new Api.auth.SentCode({
    type: new Api.auth.SentCodeTypeApp({ length: sent.length }),
    phoneCodeHash: sent.hash,
    nextType: new Api.auth.CodeTypeSms(),
    timeout: RESEND_TIMEOUT_S,
  });
});

export const resendCode = defineAuthMethod("auth.ResendCode", Api.auth.ResendCode, (ctx, req) => {
  const sent = ctx.auth.resendCode(ctx.key, req.phoneNumber, req.phoneCodeHash);
  return new Api.auth.SentCode({ type: new Api.auth.SentCodeTypeSms({ length: sent.length }), phoneCodeHash: sent.hash });
});

export const signIn = defineAuthMethod("auth.SignIn", Api.auth.SignIn, (ctx, req) => {
  const r = ctx.auth.signIn(ctx.key, req.phoneNumber, req.phoneCodeHash, req.phoneCode ?? "");
  if (!r.ok) return new Api.auth.AuthorizationSignUpRequired({});
  return authorization(ctx.views, r.user);
});

/** auth.Authorization for a user who just signed in. */
export function authorization(views: TlViews, user: EmuUser): Api.auth.Authorization {
  return new Api.auth.Authorization({ user: views.user(user, user.id) });
}
