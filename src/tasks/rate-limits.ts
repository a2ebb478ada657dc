import { metrics } from "../metrics/metrics";
import type { Logger } from "pino";
import { transaction, type Db } from "../store/db";
import type { RateLimitedError } from "./errors";

/** Two chats flooded on one method within this window pause the method account-wide. */
const ACCOUNT_WIDE_WINDOW_MS = 60_000;
/** How many distinct keys (chats) must meet the same method's flood wait within the window. */
const ACCOUNT_WIDE_MIN_KEYS = 2;
/** Longest pause for a limit without a timer (PEER_FLOOD), however often it repeats. */
export const MAX_PROBE_PAUSE_SEC = 24 * 3600;
/** While one task probes a lifted limit, the others look again this often. */
export const PROBE_WAIT_MS = 1000;
/** A probe claim older than this is void (its task never settled): the next task may probe. */
export const PROBE_CLAIM_MS = 120_000;

interface Limit {
  until: number;
  code: string;
  /** No server timer: the end is ours, and the first task after it probes. */
  probe: boolean;
  /** Consecutive pauses of a probe limit (the pause doubles with each). */
  streak: number;
  /** The pause is the caller's (RateLimitScope.paced): quiet here. Memory only. */
  paced?: boolean;
}

interface Row {
  key: string;
  until: number;
  code: string;
  probe: number;
  streak: number;
}

/**
 * The server's limits on this account, by key, persisted so a restart does not walk straight
 * back into them: flood waits per method and chat, slow mode per chat, account-wide pauses of a
 * method, PEER_FLOOD, the LLM's "come back later". Keys are opaque here; the Telegram adapter
 * names them (see ChatActions.rateKeys) and raises RateLimitedError with its scope.
 *
 * Two rules beyond "wait until the key's end":
 * - account-wide: the same limit met under ACCOUNT_WIDE_MIN_KEYS keys of one `accountKey` within
 *   ACCOUNT_WIDE_WINDOW_MS pauses `accountKey` itself until the latest of their ends;
 * - probe: a limit with no server timer (PEER_FLOOD) pauses for our own period, doubling on every
 *   repeat up to MAX_PROBE_PAUSE_SEC; when it ends, exactly one task is let through. Its success
 *   lifts the limit; meeting the limit again starts a longer pause; any other outcome lets the
 *   next task probe.
 */
export class RateLimits {
  private readonly limits = new Map<string, Limit>();
  /** Recent hits per account key: which keys met it, when, until when. Memory only: the window is short. */
  private readonly recent = new Map<string, { key: string; at: number; until: number }[]>();
  /** Probe limits whose pause ended, the task probing each and until when its claim holds. */
  private readonly probing = new Map<string, { taskId: number; until: number }>();
  private readonly upsertStmt;
  private readonly deleteStmt;
  private readonly loadStmt;
  private readonly pruneStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
    private readonly logger: Logger,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO rate_limits (agent, key, until, code, probe, streak) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, key) DO UPDATE SET until = excluded.until, code = excluded.code, probe = excluded.probe, streak = excluded.streak`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM rate_limits WHERE agent = ? AND key = ?`);
    this.loadStmt = db.prepare(`SELECT key, until, code, probe, streak FROM rate_limits WHERE agent = ?`);
    this.pruneStmt = db.prepare(`DELETE FROM rate_limits WHERE agent = ? AND probe = 0 AND until <= ?`);
  }

  /** Read the stored limits (expired timed ones are dropped). */
  load(now: number): void {
    transaction(this.db, () => this.pruneStmt.run(this.agent, now));
    this.limits.clear();
    for (const r of this.loadStmt.all(this.agent) as Row[]) {
      this.limits.set(r.key, { until: r.until, code: r.code, probe: r.probe === 1, streak: r.streak });
    }
    const active = [...this.limits].filter(([, l]) => l.probe || l.until > now);
    if (active.length) {
      this.logger.info(
        {
          component: "limits",
          limits: active.map(([key, l]) => ({ key, code: l.code, until: new Date(l.until).toISOString() })),
        },
        "rate limits restored",
      );
    }
  }

  /**
   * When the latest of `keys` lets a task run again; `now` or earlier when none holds it.
   * A probe limit whose pause is over lets through exactly one task at a time: the one that
   * `claim`ed it (`taskId`); while that claim holds, the others wait. Looking claims nothing.
   */
  blockedUntil(keys: readonly string[], now: number, taskId?: number): number {
    let until = 0;
    for (const k of keys) {
      const l = this.limits.get(k);
      if (!l) continue;
      if (l.until > now) {
        until = Math.max(until, l.until);
        continue;
      }
      if (!l.probe) {
        this.limits.delete(k); // expired; its row is pruned at the next load
        continue;
      }
      const claim = this.probing.get(k);
      if (claim && claim.until > now && claim.taskId !== taskId) until = Math.max(until, now + PROBE_WAIT_MS);
    }
    return until;
  }

  /**
   * Task `taskId`, subject to `keys`, really starts: it takes the probe of every probe limit
   * whose pause is over and that nobody else holds. `settled` (or `hit`) gives it back; a claim
   * that is never given back lapses after PROBE_CLAIM_MS. True when it took one.
   */
  claim(keys: readonly string[], taskId: number, now: number): boolean {
    let took = false;
    for (const k of keys) {
      const l = this.limits.get(k);
      if (!l?.probe || l.until > now) continue;
      const claim = this.probing.get(k);
      if (claim && claim.until > now && claim.taskId !== taskId) continue;
      this.probing.set(k, { taskId, until: now + PROBE_CLAIM_MS });
      took = true;
    }
    return took;
  }

  /** True while any of `keys` is limited (for cosmetic actions, which never probe). */
  isLimited(keys: readonly string[], now: number): boolean {
    return this.blockedUntil(keys, now) > now;
  }

  /**
   * Record a limit the server imposed; durable at once. Returns when the task that met it may
   * run again (the later of its key's end and, if it spread, its account key's).
   */
  hit(e: RateLimitedError, now: number): number {
    if (e.code.startsWith("FLOOD_WAIT") && e.scope.accountKey !== undefined) {
      metrics.floodWaits.inc({ agent: this.agent, method: e.scope.accountKey.replace(/^flood:/, "") });
    }
    return transaction(this.db, () => {
      const previous = this.limits.get(e.key);
      // A probe limit met again while its pause lasts: a task that started before the limit was
      // known (several run at once). The pause stands as it is; only a failed probe lengthens it.
      if (e.scope.probe && previous?.probe && previous.until > now) return previous.until;
      let until: number;
      let streak = 0;
      if (e.scope.paced) {
        until = now + e.seconds * 1000;
        this.probing.delete(e.key);
      } else if (e.scope.probe) {
        streak = previous?.probe ? previous.streak + 1 : 0;
        const seconds = Math.min(MAX_PROBE_PAUSE_SEC, e.seconds * 2 ** streak);
        until = now + seconds * 1000;
        this.probing.delete(e.key);
        const meta = {
          component: "limits",
          key: e.key,
          rpcError: e.code,
          until: new Date(until).toISOString(),
          pauseSec: seconds,
        };
        if (e.scope.reported) this.logger.debug(meta, `${e.code}: paused, then one probe`);
        else if (streak === 0)
          this.logger.error(meta, `${e.code}: paused until ${new Date(until).toISOString()}, then one probe`);
        else this.logger.warn(meta, `${e.code} again on the probe; paused longer`);
      } else {
        until = Math.max(now + e.seconds * 1000, previous?.until ?? 0);
      }
      this.set(e.key, {
        until,
        code: e.code,
        probe: Boolean(e.scope.probe),
        streak,
        ...(e.scope.paced ? { paced: true } : {}),
      });
      if (e.scope.accountKey !== undefined)
        until = Math.max(until, this.spread(e, e.scope.accountKey, until, now));
      return until;
    });
  }

  /**
   * The limit held under `key`, if any: a timed one until it ends, a probe limit (no server timer)
   * until a probe goes through — `until` is then when the next probe may go.
   */
  current(key: string, now: number): { until: number; code: string; probe: boolean } | undefined {
    const l = this.limits.get(key);
    if (!l || (!l.probe && l.until <= now)) return undefined;
    return { until: l.until, code: l.code, probe: l.probe };
  }

  /**
   * A task subject to `keys` ran without meeting a limit. `ok`: it succeeded, so a probe it held
   * lifts its limit; otherwise the next task may probe.
   */
  settled(keys: readonly string[], taskId: number, ok: boolean): void {
    for (const k of keys) {
      if (this.probing.get(k)?.taskId !== taskId) continue;
      this.probing.delete(k);
      if (!ok) continue;
      const l = this.limits.get(k);
      this.limits.delete(k);
      transaction(this.db, () => this.deleteStmt.run(this.agent, k));
      this.logger[l?.paced ? "debug" : "info"](
        { component: "limits", key: k, rpcError: l?.code },
        "limit lifted: the probe went through",
      );
    }
  }

  /** Remember the hit under its account key; two keys within the window pause the account key. */
  private spread(e: RateLimitedError, accountKey: string, until: number, now: number): number {
    const hits = (this.recent.get(accountKey) ?? []).filter(
      (h) => h.at > now - ACCOUNT_WIDE_WINDOW_MS && h.key !== e.key,
    );
    hits.push({ key: e.key, at: now, until });
    this.recent.set(accountKey, hits);
    if (hits.length < ACCOUNT_WIDE_MIN_KEYS) return 0;
    const accountUntil = Math.max(...hits.map((h) => h.until));
    const current = this.limits.get(accountKey);
    if (current && current.until >= accountUntil) return current.until;
    this.set(accountKey, { until: accountUntil, code: e.code, probe: false, streak: 0 });
    this.logger.warn(
      {
        component: "limits",
        key: accountKey,
        rpcError: e.code,
        keys: hits.map((h) => h.key),
        until: new Date(accountUntil).toISOString(),
      },
      `${e.code} under ${hits.length} keys within ${ACCOUNT_WIDE_WINDOW_MS / 1000} s: paused account-wide`,
    );
    return accountUntil;
  }

  private set(key: string, l: Limit): void {
    this.limits.set(key, l);
    this.upsertStmt.run(this.agent, key, l.until, l.code, l.probe ? 1 : 0, l.streak);
  }
}
