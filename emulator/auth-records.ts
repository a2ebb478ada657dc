/**
 * What the emulated login server keeps (auth-server.ts): accounts' login details, auth keys,
 * codes sent and QR login tokens, and what a sign-in step answers.
 */
import type { SrpChallenge, SrpVerifier } from "./srp";
import type { CodeDelivery, EmuDevice, EmuUser } from "./types";

/** Login details of an account (see TelegramEmulator.addAccount). */
export interface LoginAccount {
  readonly user: EmuUser;
  /** `+` and digits. */
  readonly phone: string;
  readonly homeDc: number;
  readonly password?: { readonly verifier: SrpVerifier; readonly hint?: string };
  readonly codeDelivery: readonly CodeDelivery[];
  /** The account's login e-mail (set up during a login when e-mail delivery needs one). */
  loginEmail: string | undefined;
}

/** What auth.sendCode / auth.resendCode tell the client about the code just sent. */
export interface SentCodeInfo {
  readonly hash: string;
  /** "email-setup": no code yet; an e-mail address must be set up first. */
  readonly kind: CodeDelivery | "email-setup";
  readonly length: number;
  /** Word and phrase codes: their first letter / first word. */
  readonly beginning?: string;
  /** E-mail codes: the address, partly hidden. */
  readonly emailPattern?: string;
  /** The way auth.resendCode would use next. */
  readonly next?: CodeDelivery;
}

/** An auth key the server knows: anonymous, waiting for a 2FA password, or signed in. */
export interface AuthKeyRecord {
  readonly id: string;
  readonly dcId: number;
  accountId: number | undefined;
  /** Set after SESSION_PASSWORD_NEEDED: the account whose password this key may now prove. */
  passwordFor: number | undefined;
  challenge: SrpChallenge | undefined;
  /** What the client named in initConnection on this key (the device list). */
  device: EmuDevice | undefined;
  /** Tells the client connected with this key about an update (UpdateLoginToken). */
  push: ((update: "login-token") => void) | undefined;
}

/** A login code sent under one phone code hash. */
export interface SentCode {
  readonly phone: string;
  readonly hash: string;
  readonly keyId: string;
  code: string;
  /** Index into the account's codeDelivery of the way this code went. */
  way: number;
  expiresAt: number;
  used: boolean;
  /** An e-mail address being set up for this login, with its verification code. */
  emailSetup?: { readonly email: string; readonly code: string; readonly expiresAt: number };
}

/** A QR login token exported by one key. */
export interface LoginToken {
  readonly token: Buffer;
  readonly keyId: string;
  readonly expiresAt: number;
  acceptedBy: number | undefined;
  /** Set when the token was moved to another DC (LoginTokenMigrateTo). */
  migratedTo: number | undefined;
}

/** Outcome of a sign-in step that may need the 2FA password. */
export type SignInResult =
  { readonly ok: true; readonly user: EmuUser } | { readonly ok: false; readonly signUpRequired: true };
