/**
 * Login methods by TL name: answered for any auth key, signed in or not (see network.ts).
 */
import { resendCode, sendCode, sendVerifyEmailCode, signIn, verifyEmail } from "./auth-code";
import type { AuthMethodHandler } from "./auth-method";
import { checkPassword, getPassword } from "./auth-password";
import { exportLoginToken, importLoginToken } from "./auth-qr";
import { getConfig } from "./help-config";

const HANDLERS: readonly AuthMethodHandler[] = [
  sendCode,
  resendCode,
  signIn,
  sendVerifyEmailCode,
  verifyEmail,
  getPassword,
  checkPassword,
  exportLoginToken,
  importLoginToken,
  getConfig,
];

const BY_NAME: ReadonlyMap<string, AuthMethodHandler> = new Map(HANDLERS.map((h) => [h.method, h]));

/** The login handler for a TL method name, if it is one. */
export function authMethodHandler(method: string): AuthMethodHandler | undefined {
  return BY_NAME.get(method);
}
