/**
 * Fault injection (`emu.faults`): RPC errors, latency, requests that are never answered, ended
 * sessions, replayed duplicates and handshakes that never finish.
 *
 * To add a fault: a rule store and its test-facing method here (add the method's name to
 * `Faults`), and a `take…` / `…Of` reader that the server side (rpc-endpoint.ts for account
 * requests, network.ts for the login path and handshakes) consults where the fault strikes.
 */
import type { Api } from "telegram";
import { AccountRestrictions, type Freeze, type FreezeOptions } from "./account-restrictions";
import { FloodWindows } from "./flood-windows";
import { requestIsAbout } from "./request-peer";
import { defaultErrorCode, RpcFault } from "./rpc-fault";
import type { DuplicateMode, EmuChat, EmuUser, FailNextOptions, HangOptions } from "./types";

interface FailureRule {
  readonly method: string;
  readonly errorMessage: string;
  readonly code: number;
  remaining: number;
  readonly match: ((request: Api.AnyRequest) => boolean) | undefined;
}

interface HangRule {
  readonly method: string;
  readonly peer: EmuChat | EmuUser | undefined;
  readonly when: HangOptions["when"];
  readonly onHang: (() => void) | undefined;
  remaining: number;
}

/** What a test may arm (`emu.faults`); the rest of FaultPlan is the server side reading it. */
export type Faults = Pick<
  FaultPlan,
  | "failNext"
  | "floodWait"
  | "setDelay"
  | "hang"
  | "revokeSession"
  | "setDuplicateMode"
  | "stallHandshakes"
  | "freeze"
  | "unfreeze"
  | "limitSpam"
  | "banInGroups"
>;

/** The faults armed for upcoming requests; rules are consumed in the order they were added. */
export class FaultPlan {
  private readonly failures: FailureRule[] = [];
  private readonly hangs: HangRule[] = [];
  private readonly delays = new Map<string, number>();
  /** Accounts whose session Telegram ended, with the error every request of theirs gets. */
  private readonly revoked = new Map<number, { readonly errorMessage: string; readonly code: number }>();
  private duplicates: DuplicateMode;
  private stalls = 0;
  private readonly floods: FloodWindows;
  /** Frozen and spam-limited accounts (account-restrictions.ts). */
  private readonly restrictions: AccountRestrictions;

  /** @param now the emulator's wall time in ms (flood windows and freezes run on it). */
  constructor(duplicates: DuplicateMode = "error", now: () => number = Date.now) {
    this.duplicates = duplicates;
    this.floods = new FloodWindows(now);
    this.restrictions = new AccountRestrictions(now);
  }

  // ---- what a test arms ------------------------------------------------------------------

  /**
   * Answers the next request(s) of `method` with an RPC error, mapped by GramJS's own mapper
   * (so FLOOD_WAIT_120 arrives as errors.FloodWaitError with seconds 120). Login methods too.
   * `peer`: only requests about that chat or user fail (see request-peer.ts); `match`: only
   * requests it accepts.
   */
  failNext(method: string, errorMessage: string, opts: FailNextOptions = {}): void {
    const { peer, match } = opts;
    this.failures.push({
      method,
      errorMessage,
      code: opts.code ?? defaultErrorCode(errorMessage),
      remaining: opts.times ?? 1,
      match:
        peer === undefined
          ? match
          : (request) => requestIsAbout(request, peer) && (match === undefined || match(request)),
    });
  }

  /**
   * Telegram limits `method` for `seconds` (emulator time) — for requests about `o.peer`, or for
   * all: every request of it meanwhile is answered `FLOOD_WAIT_<seconds left>` (420), as the
   * server does to a client that calls again before the wait is over (see flood-windows.ts).
   */
  floodWait(method: string, seconds: number, o: { peer?: EmuChat | EmuUser } = {}): void {
    this.floods.open(method, seconds, o.peer);
  }

  /** Answers `method` only after `ms` (real timers); 0 removes the delay. */
  setDelay(method: string, ms: number): void {
    if (ms > 0) this.delays.set(method, ms);
    else this.delays.delete(method);
  }

  /** Never answers the next request(s) of `method`, before or after applying them. */
  hang(method: string, o: HangOptions): void {
    this.hangs.push({ method, peer: o.peer, when: o.when, onHang: o.onHang, remaining: o.times ?? 1 });
  }

  /**
   * Ends `account`'s session as Telegram does when it is terminated from another device, logged
   * out, duplicated or the account is banned: every later request of that account fails with
   * `error` (SESSION_REVOKED 401 by default; AUTH_KEY_UNREGISTERED, SESSION_EXPIRED,
   * AUTH_KEY_INVALID, AUTH_KEY_PERM_EMPTY, USER_DEACTIVATED(_BAN) 401; AUTH_KEY_DUPLICATED 406).
   * `o.code` answers with another error code — e.g. a 401 under a name Telegram may add later.
   */
  revokeSession(account: EmuUser, error = "SESSION_REVOKED", o: { code?: number } = {}): void {
    this.revoked.set(account.id, { errorMessage: error, code: o.code ?? defaultErrorCode(error) });
  }

  /** How a repeated random_id is answered from now on: RANDOM_ID_DUPLICATE, or a replay of the original. */
  setDuplicateMode(mode: DuplicateMode): void {
    this.duplicates = mode;
  }

  /**
   * The next `times` (default 1) connections through the network path (`interceptConnect`) never
   * finish their handshake: `client.connect()` neither resolves nor rejects (packets dropped
   * without a reset — a firewall, a dead route), so only the caller's own time limit ends the wait.
   */
  stallHandshakes(times = 1): void {
    this.stalls = Math.max(0, times);
  }

  /**
   * Telegram freezes `account` (read-only): every write answers FROZEN_METHOD_INVALID (420),
   * reads of `o.unreachable` chats FROZEN_PARTICIPANT_MISSING (400), and help.getAppConfig
   * carries the freeze's dates and appeal link (see account-restrictions.ts).
   */
  freeze(account: EmuUser, o: FreezeOptions = {}): void {
    this.restrictions.freeze(account, o);
  }

  /** An appeal was accepted: the account writes again. */
  unfreeze(account: EmuUser): void {
    this.restrictions.unfreeze(account);
  }

  /**
   * The account is spam-limited in supergroups (a spam report): its sends (text, media, forwards)
   * and typing in any supergroup answer USER_BANNED_IN_CHANNEL (400); private chats and basic
   * groups are untouched. `false` lifts it.
   */
  banInGroups(account: EmuUser, banned = true): void {
    this.restrictions.banInGroups(account, banned);
  }

  /**
   * Telegram limits `account` for spam (`limited` false lifts it): its sends to private chats
   * with users not in its contacts answer PEER_FLOOD (400).
   */
  limitSpam(account: EmuUser, limited = true): void {
    this.restrictions.limitSpam(account, limited);
  }

  // ---- what the server reads -------------------------------------------------------------

  /** The error a restriction of `account` gives this request, if any. */
  restrictionFault(
    account: EmuUser,
    method: string,
    request: Api.AnyRequest,
    isContact: (userId: number) => boolean,
  ): RpcFault | undefined {
    return this.restrictions.faultFor(account, method, request, isContact);
  }

  /** The account's freeze, if it is frozen (help.getAppConfig). */
  freezeOf(accountId: number): Freeze | undefined {
    return this.restrictions.freezeOf(accountId);
  }

  /**
   * The fault to answer this request with: an open flood window of its method, else a failure
   * rule matching it (consumed).
   */
  takeFailure(method: string, request: Api.AnyRequest): RpcFault | undefined {
    const flood = this.floods.check(method, request);
    if (flood) return flood;
    const i = this.failures.findIndex(
      (r) => r.method === method && (r.match === undefined || r.match(request)),
    );
    const rule = this.failures[i];
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.failures.splice(i, 1);
    return new RpcFault(rule.errorMessage, rule.code);
  }

  /** Consumes a hang rule for this request (its method, and its peer when the rule names one), if any. */
  takeHang(method: string, request: Api.AnyRequest): Pick<HangRule, "when" | "onHang"> | undefined {
    const i = this.hangs.findIndex(
      (r) => r.method === method && (r.peer === undefined || requestIsAbout(request, r.peer)),
    );
    const rule = this.hangs[i];
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.hangs.splice(i, 1);
    return { when: rule.when, onHang: rule.onHang };
  }

  /** The error an account's every request gets once its session was revoked, if it was. */
  revokedFault(accountId: number): RpcFault | undefined {
    const e = this.revoked.get(accountId);
    return e === undefined ? undefined : new RpcFault(e.errorMessage, e.code);
  }

  delayOf(method: string): number {
    return this.delays.get(method) ?? 0;
  }

  /** How a repeated random_id is answered right now. */
  get duplicateMode(): DuplicateMode {
    return this.duplicates;
  }

  /** Consumes one armed handshake stall, if any. */
  takeStall(): boolean {
    if (this.stalls <= 0) return false;
    this.stalls--;
    return true;
  }
}
