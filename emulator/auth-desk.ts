/**
 * Telegram's login server as a test sees it (`emu.auth`): the codes it sent (what the owner
 * reads in the app or the mailbox), QR tokens another device accepts, the account's devices and
 * sign-in state, and the requests answered on the login path. The protocol itself is
 * auth-server.ts; the network path that reaches it is network.ts.
 */
import type { AuthServer } from "./auth-server";
import type { Connections } from "./connections";
import type { Network, RecordedLoginRequest } from "./network";
import type { EmuDevice, EmuUser } from "./types";

export class AuthDesk {
  constructor(
    private readonly server: AuthServer,
    private readonly network: Network,
    private readonly connections: Connections,
  ) {}

  /** The last login code Telegram sent for a phone, whichever way it went (what its owner reads). */
  loginCode(phone: string): string | undefined {
    return this.server.lastCodeFor(phone);
  }

  /** Makes the phone's outstanding login codes expire now. */
  expireLoginCodes(phone: string): void {
    this.server.expireCodes(phone);
  }

  /** The last verification code sent to an e-mail address being set up as a login e-mail. */
  emailCode(email: string): string | undefined {
    return this.server.lastEmailCodeFor(email);
  }

  /** The account's login e-mail (set up during a login), if any. */
  loginEmail(account: EmuUser): string | undefined {
    return this.server.loginEmailOf(account.id);
  }

  /**
   * The next `times` login e-mail set-ups of `phone` are proved but not taken: account.verifyEmail
   * answers emailVerifiedLogin whose sent code is sentCodeTypeSetUpEmailRequired again.
   */
  refuseLoginEmail(phone: string, times = 1): void {
    this.server.refuseLoginEmail(phone, times);
  }

  /**
   * Another logged-in device of `account` scans a QR login code and accepts it: `token`, or the
   * newest one still valid. The exporting client is told with UpdateLoginToken. False when
   * there is no valid token to accept.
   */
  acceptLoginToken(account: EmuUser, token?: Buffer): boolean {
    return this.server.acceptLoginToken(account.id, token);
  }

  /** How many QR login tokens could be accepted right now. */
  liveLoginTokens(): number {
    return this.server.liveLoginTokens();
  }

  /**
   * The account's device list, as Telegram shows it in every app: one entry per signed-in session
   * (auth keys that logged in through the network path, and the attached client), with what the
   * client named in initConnection when it connected.
   */
  devices(account: EmuUser): EmuDevice[] {
    const out = this.server.devices(account.id);
    const attached = this.connections.of(account)?.sender.device;
    if (attached && !out.includes(attached)) out.push(attached);
    return out;
  }

  /** True when some auth key is signed in as `account`. */
  isSignedIn(account: EmuUser): boolean {
    return this.server.isSignedIn(account.id);
  }

  /** How many times the account exported its authorization to another DC (auth.exportAuthorization). */
  exportedAuthorizations(account: EmuUser): number {
    return this.server.exportsOf(account.id);
  }

  /** Requests answered on the login path, in order (not in `emu.traffic.requests`: they have no account). */
  get requests(): readonly RecordedLoginRequest[] {
    return this.network.requests;
  }

  /** Just the method names of `requests`. */
  methods(): string[] {
    return this.network.requests.map((r) => r.method);
  }
}
