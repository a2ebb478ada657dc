/**
 * 2FA: account.getPassword (the SRP parameters and a fresh challenge) and auth.checkPassword
 * (the SRP proof, checked server-side: see srp.ts).
 */
import { randomBytes } from "node:crypto";
import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { SRP_G, SRP_PRIME } from "../srp";
import { authorization } from "./auth-code";
import { defineAuthMethod } from "./auth-method";
import { RpcFault } from "../rpc-fault";

export const getPassword = defineAuthMethod("account.GetPassword", Api.account.GetPassword, (ctx) => {
  const { account, challenge } = ctx.auth.passwordChallenge(ctx.key);
  const pw = account.password;
  const common = {
    newAlgo: new Api.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow({
      salt1: randomBytes(32),
      salt2: randomBytes(16),
      g: SRP_G,
      p: SRP_PRIME,
    }),
    newSecureAlgo: new Api.SecurePasswordKdfAlgoPBKDF2HMACSHA512iter100000({ salt: randomBytes(8) }),
    secureRandom: randomBytes(32),
  };
  if (!pw || !challenge) return new Api.account.Password({ ...common, hasPassword: false });
  return new Api.account.Password({
    ...common,
    hasPassword: true,
    currentAlgo: new Api.PasswordKdfAlgoSHA256SHA256PBKDF2HMACSHA512iter100000SHA256ModPow({
      salt1: pw.verifier.salt1,
      salt2: pw.verifier.salt2,
      g: SRP_G,
      p: SRP_PRIME,
    }),
    srp_B: challenge.B,
    srpId: returnBigInt(challenge.srpId.toString()),
    ...(pw.hint !== undefined ? { hint: pw.hint } : {}),
  });
});

export const checkPassword = defineAuthMethod("auth.CheckPassword", Api.auth.CheckPassword, (ctx, req) => {
  const p = req.password;
  if (!(p instanceof Api.InputCheckPasswordSRP)) throw new RpcFault("PASSWORD_HASH_INVALID");
  const r = ctx.auth.checkPassword(ctx.key, BigInt(p.srpId.toString()), p.A, p.M1);
  if (!r.ok) throw new RpcFault("PASSWORD_HASH_INVALID");
  return authorization(ctx.views, r.user);
});
