/**
 * Telegram's login server, emulated: which auth key belongs to which account, the login codes
 * sent to phones, 2FA passwords (stored as SRP verifiers) and QR login tokens.
 *
 * Rules modelled (each one a thing a real login meets):
 * - An auth key is created by the connection handshake and is anonymous until a sign-in binds
 *   it to an account; account methods on an anonymous key get AUTH_KEY_UNREGISTERED (401).
 * - A phone lives on a home DC; auth.sendCode from another DC answers PHONE_MIGRATE_<dc> (303).
 * - A code goes out the account's way (`codeDelivery`: the app, SMS, a call — 5 digits —, an SMS
 *   with a secret word or phrase, or e-mail), one per phone code hash, valid for `codeTtlMs`; a
 *   used or expired code answers PHONE_CODE_EXPIRED, a wrong one PHONE_CODE_INVALID. Each sent
 *   code names the next way (`next_type`, with a 60 s `timeout`); auth.resendCode sends the code
 *   that way under the same hash — SEND_CODE_UNAVAILABLE when there is none, PHONE_CODE_EXPIRED
 *   once the code expired or was used (then only a new auth.sendCode helps).
 * - An e-mail code is proved with auth.signIn's `email_verification` (emailVerificationCode),
 *   never with `phone_code` (PHONE_CODE_INVALID); a wrong one is EMAIL_CODE_INVALID. An account
 *   whose code goes by e-mail but has no login e-mail yet is answered
 *   sentCodeTypeSetUpEmailRequired: the client sends a code to the address the user gives
 *   (account.sendVerifyEmailCode, purpose emailVerifyPurposeLoginSetup with the phone and hash;
 *   EMAIL_INVALID for a malformed address), proves it (account.verifyEmail; CODE_INVALID when
 *   wrong, EMAIL_VERIFY_EXPIRED after `codeTtlMs`), and gets account.emailVerifiedLogin: the
 *   address is the account's login e-mail from then on and the login code was just sent to it.
 * - An account with a password answers SESSION_PASSWORD_NEEDED; the key then may ask
 *   account.getPassword (a fresh SRP challenge each time) and auth.checkPassword (one attempt
 *   per challenge; a stale srp_id → SRP_ID_INVALID; a wrong proof → PASSWORD_HASH_INVALID).
 * - QR tokens live 30 s. Another device of the account accepts one; the exporting connection
 *   is told with UpdateLoginToken; its next auth.exportLoginToken logs it in — or, when the
 *   account lives on another DC, answers LoginTokenMigrateTo and the client imports the token
 *   there with auth.importLoginToken.
 */
import { randomBytes, randomInt } from "node:crypto";
import { RpcFault } from "./rpc-fault";
import { srpChallenge, srpCheck, srpVerifier, type SrpChallenge } from "./srp";
import type { CodeDelivery, EmuDevice, EmuUser } from "./types";
import type {
  AuthKeyRecord,
  LoginAccount,
  LoginToken,
  SentCode,
  SentCodeInfo,
  SignInResult,
} from "./auth-records";
import { DEFAULT_CODE_DELIVERY, drawCode, emailPattern, normaliseCode, normalisePhone } from "./login-codes";

export type { AuthKeyRecord, SentCodeInfo } from "./auth-records";

/** The DC a fresh GramJS session connects to, and every account's home unless told otherwise. */
export const DEFAULT_DC = 4;
/** Telegram's DCs 1–5. */
export const DC_IDS = [1, 2, 3, 4, 5] as const;
/** Lifetime of a QR login token (Telegram's are 30 s). */
const LOGIN_TOKEN_TTL_MS = 30_000;

/** The login side of the emulated Telegram. */
export class AuthServer {
  private readonly accounts = new Map<string, LoginAccount>();
  private readonly byUser = new Map<number, LoginAccount>();
  private readonly keys = new Map<string, AuthKeyRecord>();
  private readonly codes = new Map<string, SentCode>();
  private readonly lastCode = new Map<string, string>();
  private readonly lastEmailCode = new Map<string, string>();
  private readonly tokens = new Map<string, LoginToken>();
  private readonly exports = new Map<
    number,
    { readonly user: EmuUser; readonly dcId: number; readonly bytes: Buffer }
  >();
  private readonly exportCount = new Map<number, number>();
  /** Phones whose next login e-mail set-ups Telegram does not take (see refuseLoginEmail). */
  private readonly emailRefusals = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly codeTtlMs: number,
    /** The one app (api_id, api_hash) the server accepts; undefined accepts any. */
    private readonly app: { readonly apiId: number; readonly apiHash: string } | undefined,
  ) {}

  /** auth.sendCode and auth.exportLoginToken carry the app's credentials: API_ID_INVALID if wrong. */
  checkApp(apiId: number, apiHash: string): void {
    if (this.app && (this.app.apiId !== apiId || this.app.apiHash !== apiHash))
      throw new RpcFault("API_ID_INVALID");
  }

  // ---- accounts --------------------------------------------------------------------------

  register(
    user: EmuUser,
    o: {
      phone: string;
      dc?: number;
      password?: string;
      passwordHint?: string;
      codeDelivery?: readonly CodeDelivery[];
      loginEmail?: string;
    },
  ): void {
    const phone = normalisePhone(o.phone);
    if (!phone) throw new Error(`emulator: bad phone ${o.phone}`);
    if (this.accounts.has(phone)) throw new Error(`emulator: phone ${o.phone} is taken`);
    const acc: LoginAccount = {
      user,
      phone,
      homeDc: o.dc ?? DEFAULT_DC,
      ...(o.password !== undefined
        ? {
            password: {
              verifier: srpVerifier(o.password),
              ...(o.passwordHint !== undefined ? { hint: o.passwordHint } : {}),
            },
          }
        : {}),
      codeDelivery: o.codeDelivery && o.codeDelivery.length > 0 ? [...o.codeDelivery] : DEFAULT_CODE_DELIVERY,
      loginEmail: o.loginEmail,
    };
    this.accounts.set(phone, acc);
    this.byUser.set(user.id, acc);
  }

  account(userId: number): LoginAccount | undefined {
    return this.byUser.get(userId);
  }

  // ---- auth keys -------------------------------------------------------------------------

  /** The record of a key (bytes as the client holds them); unknown keys start anonymous. */
  key(bytes: Buffer, dcId: number): AuthKeyRecord {
    const id = bytes.toString("hex");
    let rec = this.keys.get(id);
    if (!rec) {
      rec = {
        id,
        dcId,
        accountId: undefined,
        passwordFor: undefined,
        challenge: undefined,
        device: undefined,
        push: undefined,
      };
      this.keys.set(id, rec);
    }
    return rec;
  }

  /** Signs every key of an account out (a "terminate all sessions" from another device). */
  logOutEverywhere(userId: number): void {
    for (const k of this.keys.values()) if (k.accountId === userId) k.accountId = undefined;
  }

  /** The devices of the keys signed in as this account (those that named one). */
  devices(userId: number): EmuDevice[] {
    return [...this.keys.values()].flatMap((k) => (k.accountId === userId && k.device ? [k.device] : []));
  }

  /** True when some key is signed in as this account. */
  isSignedIn(userId: number): boolean {
    return [...this.keys.values()].some((k) => k.accountId === userId);
  }

  private bind(key: AuthKeyRecord, acc: LoginAccount): SignInResult {
    if (acc.password) {
      key.passwordFor = acc.user.id;
      key.challenge = undefined;
      throw new RpcFault("SESSION_PASSWORD_NEEDED", 401);
    }
    key.accountId = acc.user.id;
    return { ok: true, user: acc.user };
  }

  // ---- phone codes -----------------------------------------------------------------------

  sendCode(key: AuthKeyRecord, rawPhone: string): SentCodeInfo {
    const phone = normalisePhone(rawPhone);
    if (!phone) throw new RpcFault("PHONE_NUMBER_INVALID");
    const acc = this.accounts.get(phone);
    if (acc && acc.homeDc !== key.dcId) throw new RpcFault(`PHONE_MIGRATE_${acc.homeDc}`, 303);
    const hash = randomBytes(9).toString("hex");
    const sent: SentCode = { phone, hash, keyId: key.id, code: "", way: 0, expiresAt: 0, used: false };
    this.codes.set(hash, sent);
    // E-mail delivery without a login e-mail: one must be set up first (no code goes out yet).
    if (acc && this.way(acc, 0) === "email" && acc.loginEmail === undefined) {
      sent.expiresAt = this.now() + this.codeTtlMs;
      return { hash, kind: "email-setup", length: 0 };
    }
    return this.issue(sent, acc);
  }

  /** auth.resendCode: the code again, the next way (see the file comment). */
  resendCode(key: AuthKeyRecord, rawPhone: string, hash: string): SentCodeInfo {
    const sent = this.sentCode(key, rawPhone, hash);
    if (sent.used || this.now() >= sent.expiresAt) throw new RpcFault("PHONE_CODE_EXPIRED");
    const acc = this.accounts.get(sent.phone);
    const next = sent.way + 1;
    if ((acc ? acc.codeDelivery.length : DEFAULT_CODE_DELIVERY.length) <= next)
      throw new RpcFault("SEND_CODE_UNAVAILABLE");
    sent.way = next;
    return this.issue(sent, acc);
  }

  signIn(
    key: AuthKeyRecord,
    rawPhone: string,
    hash: string,
    proof: { phoneCode?: string; emailCode?: string },
  ): SignInResult {
    const sent = this.sentCode(key, rawPhone, hash);
    const acc = this.accounts.get(sent.phone);
    const byEmail = acc !== undefined && this.way(acc, sent.way) === "email";
    if (sent.used || this.now() >= sent.expiresAt) throw new RpcFault("PHONE_CODE_EXPIRED");
    if (sent.code === "") throw new RpcFault("PHONE_CODE_INVALID"); // e-mail still to be set up: no code was sent
    if (byEmail) {
      // An e-mail code belongs in email_verification; typed as a phone code it is just wrong.
      if (proof.emailCode === undefined)
        throw new RpcFault(proof.phoneCode ? "PHONE_CODE_INVALID" : "PHONE_CODE_EMPTY");
      if (proof.emailCode !== sent.code) throw new RpcFault("EMAIL_CODE_INVALID");
    } else {
      const code = proof.phoneCode ?? "";
      if (code === "") throw new RpcFault("PHONE_CODE_EMPTY");
      if (normaliseCode(code) !== normaliseCode(sent.code)) throw new RpcFault("PHONE_CODE_INVALID");
    }
    sent.used = true;
    if (!acc) return { ok: false, signUpRequired: true };
    return this.bind(key, acc);
  }

  /**
   * account.sendVerifyEmailCode with emailVerifyPurposeLoginSetup: a verification code to `email`
   * for the login of `hash`. Returns the address's pattern and the code's length.
   */
  sendSetupEmailCode(
    key: AuthKeyRecord,
    rawPhone: string,
    hash: string,
    email: string,
  ): { emailPattern: string; length: number } {
    const sent = this.sentCode(key, rawPhone, hash);
    if (sent.used || this.now() >= sent.expiresAt) throw new RpcFault("PHONE_CODE_EXPIRED");
    const acc = this.accounts.get(sent.phone);
    if (!acc || this.way(acc, sent.way) !== "email" || acc.loginEmail !== undefined)
      throw new RpcFault("EMAIL_NOT_SETUP");
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new RpcFault("EMAIL_INVALID");
    const code = String(randomInt(100_000, 1_000_000));
    sent.emailSetup = { email, code, expiresAt: this.now() + this.codeTtlMs };
    this.lastEmailCode.set(email.toLowerCase(), code);
    return { emailPattern: emailPattern(email), length: code.length };
  }

  /**
   * account.verifyEmail with emailVerifyPurposeLoginSetup: the address is proved, becomes the
   * account's login e-mail, and the login code goes there now (under the same hash).
   */
  verifySetupEmail(
    key: AuthKeyRecord,
    rawPhone: string,
    hash: string,
    code: string,
  ): { email: string; sent: SentCodeInfo } {
    const sent = this.sentCode(key, rawPhone, hash);
    const setup = sent.emailSetup;
    if (!setup || this.now() >= setup.expiresAt) throw new RpcFault("EMAIL_VERIFY_EXPIRED");
    if (code.trim() !== setup.code) throw new RpcFault("CODE_INVALID");
    const acc = this.accounts.get(sent.phone);
    if (!acc) throw new RpcFault("PHONE_NUMBER_UNOCCUPIED");
    sent.emailSetup = undefined;
    const refusals = this.emailRefusals.get(sent.phone) ?? 0;
    if (refusals > 0) {
      // Proved, but not taken: the login still needs an e-mail set up, under the same hash.
      this.emailRefusals.set(sent.phone, refusals - 1);
      sent.expiresAt = this.now() + this.codeTtlMs;
      return { email: setup.email, sent: { hash: sent.hash, kind: "email-setup", length: 0 } };
    }
    acc.loginEmail = setup.email;
    return { email: setup.email, sent: this.issue(sent, acc) };
  }

  /**
   * The next `times` login e-mail set-ups of `rawPhone` are proved but not taken:
   * account.verifyEmail answers emailVerifiedLogin whose sent code asks for the set-up again
   * (sentCodeTypeSetUpEmailRequired).
   */
  refuseLoginEmail(rawPhone: string, times: number): void {
    const phone = normalisePhone(rawPhone);
    if (!phone) throw new Error(`emulator: bad phone ${rawPhone}`);
    this.emailRefusals.set(phone, times);
  }

  /** The last e-mail verification code sent to an address (what its owner reads). */
  lastEmailCodeFor(email: string): string | undefined {
    return this.lastEmailCode.get(email.toLowerCase());
  }

  /** The account's login e-mail, if one is set up. */
  loginEmailOf(userId: number): string | undefined {
    return this.byUser.get(userId)?.loginEmail;
  }

  /** The last code "delivered to the Telegram app" of a phone (what its owner would read). */
  lastCodeFor(rawPhone: string): string | undefined {
    return this.lastCode.get(normalisePhone(rawPhone) ?? "");
  }

  /** Ends the validity of the phone's outstanding codes now. */
  expireCodes(rawPhone: string): void {
    const phone = normalisePhone(rawPhone);
    for (const c of this.codes.values()) if (c.phone === phone) c.expiresAt = this.now();
  }

  private sentCode(key: AuthKeyRecord, rawPhone: string, hash: string): SentCode {
    if (hash === "") throw new RpcFault("PHONE_CODE_HASH_EMPTY");
    const phone = normalisePhone(rawPhone);
    if (!phone) throw new RpcFault("PHONE_NUMBER_INVALID");
    const sent = this.codes.get(hash);
    // A hash from another connection or for another number is as good as none (Telegram says
    // the code expired when sendCode and signIn run on different connections).
    if (!sent || sent.phone !== phone || sent.keyId !== key.id) throw new RpcFault("PHONE_CODE_EXPIRED");
    return sent;
  }

  /** The way number `i` of an account's deliveries (clamped to the last). */
  private way(acc: LoginAccount, i: number): CodeDelivery {
    return acc.codeDelivery[Math.min(i, acc.codeDelivery.length - 1)]!;
  }

  /** A new code for `sent`, the way its account's delivery number `sent.way` says. */
  private issue(sent: SentCode, acc: LoginAccount | undefined): SentCodeInfo {
    const deliveries = acc?.codeDelivery ?? DEFAULT_CODE_DELIVERY;
    const kind = deliveries[Math.min(sent.way, deliveries.length - 1)]!;
    const next = deliveries[sent.way + 1];
    const drawn = drawCode(kind);
    sent.code = drawn.code;
    const beginning = drawn.beginning;
    sent.expiresAt = this.now() + this.codeTtlMs;
    this.lastCode.set(sent.phone, sent.code);
    return {
      hash: sent.hash,
      kind,
      length: sent.code.length,
      ...(beginning !== undefined ? { beginning } : {}),
      ...(kind === "email" && acc?.loginEmail ? { emailPattern: emailPattern(acc.loginEmail) } : {}),
      ...(next !== undefined ? { next } : {}),
    };
  }

  // ---- 2FA -------------------------------------------------------------------------------

  /** account.getPassword: a fresh challenge for a key that may prove (or has) the account. */
  passwordChallenge(key: AuthKeyRecord): { account: LoginAccount; challenge: SrpChallenge | undefined } {
    const acc = this.byUser.get(key.passwordFor ?? key.accountId ?? -1);
    if (!acc) throw new RpcFault("AUTH_KEY_UNREGISTERED", 401);
    key.challenge = acc.password ? srpChallenge(acc.password.verifier) : undefined;
    return { account: acc, challenge: key.challenge };
  }

  checkPassword(key: AuthKeyRecord, srpId: bigint, A: Buffer, M1: Buffer): SignInResult {
    const acc = this.byUser.get(key.passwordFor ?? -1);
    if (!acc?.password) throw new RpcFault("AUTH_KEY_UNREGISTERED", 401);
    const challenge = key.challenge;
    key.challenge = undefined; // one attempt per challenge
    if (!challenge || challenge.srpId !== srpId) throw new RpcFault("SRP_ID_INVALID");
    if (!srpCheck(acc.password.verifier, challenge, A, M1)) throw new RpcFault("PASSWORD_HASH_INVALID");
    key.passwordFor = undefined;
    key.accountId = acc.user.id;
    return { ok: true, user: acc.user };
  }

  // ---- other data centres ---------------------------------------------------------------

  /**
   * auth.exportAuthorization on the account's own connection: a one-time token that signs a key
   * on data centre `dcId` in as the account (auth.importAuthorization there).
   */
  exportAuthorization(user: EmuUser, dcId: number): { id: number; bytes: Buffer } {
    if (!(DC_IDS as readonly number[]).includes(dcId)) throw new RpcFault("DC_ID_INVALID");
    const id = randomInt(1, 2 ** 31 - 1);
    const bytes = randomBytes(32);
    this.exports.set(id, { user, dcId, bytes });
    this.exportCount.set(user.id, (this.exportCount.get(user.id) ?? 0) + 1);
    return { id, bytes };
  }

  /** How many authorizations an account exported to other data centres. */
  exportsOf(userId: number): number {
    return this.exportCount.get(userId) ?? 0;
  }

  /** auth.importAuthorization on a key of another data centre: binds it to the exporting account. */
  importAuthorization(key: AuthKeyRecord, id: number, bytes: Buffer): EmuUser {
    const e = this.exports.get(id);
    if (!e || !e.bytes.equals(bytes) || e.dcId !== key.dcId) throw new RpcFault("AUTH_BYTES_INVALID");
    this.exports.delete(id);
    key.accountId = e.user.id;
    return e.user;
  }

  // ---- QR login --------------------------------------------------------------------------

  /**
   * auth.exportLoginToken: a new token — or, once one of this key's tokens was accepted, the
   * login (same DC) or the move to the account's DC.
   */
  exportLoginToken(
    key: AuthKeyRecord,
  ):
    | { kind: "token"; token: Buffer; expires: number }
    | { kind: "success"; user: EmuUser }
    | { kind: "migrate"; dcId: number; token: Buffer } {
    const accepted = [...this.tokens.values()].find((t) => t.keyId === key.id && t.acceptedBy !== undefined);
    if (accepted) {
      const acc = this.byUser.get(accepted.acceptedBy ?? -1);
      if (!acc) throw new RpcFault("AUTH_TOKEN_INVALID");
      if (acc.homeDc !== key.dcId) {
        accepted.migratedTo = acc.homeDc;
        return { kind: "migrate", dcId: acc.homeDc, token: accepted.token };
      }
      this.tokens.delete(accepted.token.toString("hex"));
      const r = this.bind(key, acc);
      if (!r.ok) throw new RpcFault("AUTH_TOKEN_INVALID");
      return { kind: "success", user: r.user };
    }
    const token = randomBytes(32);
    const expiresAt = this.now() + LOGIN_TOKEN_TTL_MS;
    this.tokens.set(token.toString("hex"), {
      token,
      keyId: key.id,
      expiresAt,
      acceptedBy: undefined,
      migratedTo: undefined,
    });
    return { kind: "token", token, expires: Math.floor(expiresAt / 1000) };
  }

  /** auth.importLoginToken on the account's DC, with the token LoginTokenMigrateTo gave. */
  importLoginToken(key: AuthKeyRecord, token: Buffer): EmuUser {
    const t = this.tokens.get(token.toString("hex"));
    if (!t || t.acceptedBy === undefined) throw new RpcFault("AUTH_TOKEN_INVALID");
    if (t.migratedTo !== key.dcId) throw new RpcFault("AUTH_TOKEN_INVALID");
    const acc = this.byUser.get(t.acceptedBy);
    if (!acc) throw new RpcFault("AUTH_TOKEN_INVALID");
    this.tokens.delete(token.toString("hex"));
    const r = this.bind(key, acc);
    if (!r.ok) throw new RpcFault("AUTH_TOKEN_INVALID");
    return r.user;
  }

  /**
   * Another device of `userId` scans a QR code and accepts it: `token` (default: the newest
   * unexpired unaccepted token). Returns false when there is no such token (or it expired).
   */
  acceptLoginToken(userId: number, token?: Buffer): boolean {
    const live = [...this.tokens.values()].filter(
      (t) => t.acceptedBy === undefined && t.expiresAt > this.now(),
    );
    const t = token ? live.find((x) => x.token.equals(token)) : live[live.length - 1];
    if (!t || !this.byUser.has(userId)) return false;
    t.acceptedBy = userId;
    this.keys.get(t.keyId)?.push?.("login-token");
    return true;
  }

  /** How many QR tokens could be scanned right now. */
  liveLoginTokens(): number {
    return [...this.tokens.values()].filter((t) => t.acceptedBy === undefined && t.expiresAt > this.now())
      .length;
  }
}
