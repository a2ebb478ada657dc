/**
 * Fault injection: RPC errors, latency and requests that are never answered.
 */
import type { Api } from "telegram";
import { defaultErrorCode, RpcFault } from "./rpc-fault";
import type { FailNextOptions, HangOptions } from "./types";

interface FailureRule {
  readonly method: string;
  readonly errorMessage: string;
  readonly code: number;
  remaining: number;
  readonly match: ((request: Api.AnyRequest) => boolean) | undefined;
}

interface HangRule {
  readonly method: string;
  readonly when: HangOptions["when"];
  readonly onHang: (() => void) | undefined;
  remaining: number;
}

/** The faults armed for upcoming requests; rules are consumed in the order they were added. */
export class FaultPlan {
  private readonly failures: FailureRule[] = [];
  private readonly hangs: HangRule[] = [];
  private readonly delays = new Map<string, number>();
  /** Accounts whose session Telegram ended, with the error every request of theirs gets. */
  private readonly revoked = new Map<number, { readonly errorMessage: string; readonly code: number }>();

  failNext(method: string, errorMessage: string, opts: FailNextOptions = {}): void {
    this.failures.push({
      method,
      errorMessage,
      code: opts.code ?? defaultErrorCode(errorMessage),
      remaining: opts.times ?? 1,
      match: opts.match,
    });
  }

  setDelay(method: string, ms: number): void {
    if (ms > 0) this.delays.set(method, ms);
    else this.delays.delete(method);
  }

  hang(method: string, o: HangOptions): void {
    this.hangs.push({ method, when: o.when, onHang: o.onHang, remaining: o.times ?? 1 });
  }

  /** Consumes a failure rule matching this request, if any, as the fault to answer with. */
  takeFailure(method: string, request: Api.AnyRequest): RpcFault | undefined {
    const i = this.failures.findIndex(
      (r) => r.method === method && (r.match === undefined || r.match(request)),
    );
    const rule = this.failures[i];
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.failures.splice(i, 1);
    return new RpcFault(rule.errorMessage, rule.code);
  }

  /** Consumes a hang rule for this method, if any. */
  takeHang(method: string): Pick<HangRule, "when" | "onHang"> | undefined {
    const i = this.hangs.findIndex((r) => r.method === method);
    const rule = this.hangs[i];
    if (!rule) return undefined;
    if (--rule.remaining <= 0) this.hangs.splice(i, 1);
    return { when: rule.when, onHang: rule.onHang };
  }

  revoke(accountId: number, errorMessage: string, code = defaultErrorCode(errorMessage)): void {
    this.revoked.set(accountId, { errorMessage, code });
  }

  /** The error an account's every request gets once its session was revoked, if it was. */
  revokedFault(accountId: number): RpcFault | undefined {
    const e = this.revoked.get(accountId);
    return e === undefined ? undefined : new RpcFault(e.errorMessage, e.code);
  }

  delayOf(method: string): number {
    return this.delays.get(method) ?? 0;
  }
}
