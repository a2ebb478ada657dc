/**
 * Is every persona of this process able to work? Each running persona registers where its
 * connection state comes from (live: the connection watchdog; sandbox: the emulator); `/readyz`
 * and the `userbot_connection_state` gauge read it. Process-wide, like the metrics registry.
 * Beside the personas, conditions of the whole process (the state database: its file still the
 * one opened, its writes working) register a check that names what is wrong, if anything.
 */
import { watchConnection, watchRestrictions, type ConnectionStateName } from "../metrics/metrics";

/** A restriction Telegram put on the account (telegram/outbound/account-health.ts), as shown. */
interface RestrictionView {
  /** "frozen": read-only, nothing goes out; "peer-flood": no messages to non-contacts; "group-ban": none to supergroups. */
  readonly kind: "frozen" | "peer-flood" | "group-ban";
  /** What it means and what the owner can do, in one line. */
  readonly summary: string;
}

/** What a persona says about its connection. */
export interface PersonaConnection {
  readonly state: ConnectionStateName;
  /** Last time Telegram was heard from (an update, or an answered probe), ms. Undefined: not tracked (sandbox). */
  readonly lastHeardAt?: number;
  /** Heard from within this long counts as alive (the watchdog's window), ms. */
  readonly windowMs?: number;
  /** Why it is not connected, in a few words (no secret, no message content). */
  readonly reason?: string;
  /** Restrictions Telegram put on the account (none: absent or empty). */
  readonly restrictions?: readonly RestrictionView[];
}

/** One persona in the `/readyz` answer. */
interface PersonaReadiness {
  readonly name: string;
  readonly ready: boolean;
  readonly state: ConnectionStateName;
  /** Seconds since Telegram was last heard from, when tracked. */
  readonly lastHeardSecondsAgo?: number;
  readonly reason?: string;
  /**
   * Restrictions Telegram put on the account. A frozen account is not ready (nothing it plans can
   * go out); a spam-limited one is (groups and contacts are answered), and says so here.
   */
  readonly restrictions?: readonly RestrictionView[];
}

/** A condition of the whole process that is not met now. */
interface ProcessProblem {
  readonly name: string;
  readonly reason: string;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly personas: readonly PersonaReadiness[];
  /** Conditions of the process that fail now (e.g. `database`), each with what is wrong. */
  readonly problems?: readonly ProcessProblem[];
  /** Set when there is nothing to be ready: no persona registered. */
  readonly reason?: string;
}

const sources = new Map<string, () => PersonaConnection>();
const conditions = new Map<string, () => string | undefined>();

/**
 * Report a condition of the whole process from now on: `check` answers what is wrong now, or
 * undefined when all is well (a failing one makes /readyz 503 and names it). Returns the way to stop.
 */
export function registerCondition(name: string, check: () => string | undefined): () => void {
  conditions.set(name, check);
  return () => {
    if (conditions.get(name) === check) conditions.delete(name);
  };
}

/**
 * Report persona `name`'s connection from now on (also to the connection-state gauge). Returns
 * the way to stop; a persona that ended should stay registered as `stopped` until the process
 * ends, so readiness names it.
 */
export function registerPersona(name: string, source: () => PersonaConnection): () => void {
  sources.set(name, source);
  const unwatch = watchConnection(name, () => source().state);
  const unwatchRestrictions = watchRestrictions(name, () => (source().restrictions ?? []).map((r) => r.kind));
  return () => {
    unwatch();
    unwatchRestrictions();
    if (sources.get(name) === source) sources.delete(name);
  };
}

const REASONS: Record<ConnectionStateName, string> = {
  connecting: "connecting to Telegram",
  connected: "",
  reconnecting: "connection to Telegram lost; reconnecting",
  stopped: "not running",
};

/** Ready only when every registered persona is connected and was heard from within its window, and no process condition fails. */
export function readiness(now: number): ReadinessReport {
  const problems: ProcessProblem[] = [];
  for (const [name, check] of conditions) {
    const reason = check();
    if (reason !== undefined) problems.push({ name, reason });
  }
  const withProblems = problems.length > 0 ? { problems } : {};
  if (sources.size === 0)
    return { ready: false, personas: [], reason: "no persona is running", ...withProblems };
  const personas = [...sources].map(([name, source]): PersonaReadiness => {
    const c = source();
    const ago =
      c.lastHeardAt !== undefined ? Math.max(0, Math.round((now - c.lastHeardAt) / 1000)) : undefined;
    const restrictions = c.restrictions?.length ? { restrictions: c.restrictions } : {};
    const base = {
      name,
      state: c.state,
      ...(ago !== undefined ? { lastHeardSecondsAgo: ago } : {}),
      ...restrictions,
    };
    if (c.state !== "connected")
      return {
        ...base,
        ready: false,
        reason: c.reason ? `${REASONS[c.state]}: ${c.reason}` : REASONS[c.state],
      };
    if (c.lastHeardAt !== undefined && c.windowMs !== undefined && now - c.lastHeardAt > c.windowMs) {
      return {
        ...base,
        ready: false,
        reason: `no update and no answered probe from Telegram for ${ago} s (more than ${seconds(c.windowMs)} s)`,
      };
    }
    const frozen = c.restrictions?.find((r) => r.kind === "frozen");
    if (frozen) return { ...base, ready: false, reason: frozen.summary };
    return { ...base, ready: true };
  });
  return { ready: personas.every((p) => p.ready) && problems.length === 0, personas, ...withProblems };
}

/** Whole seconds, or tenths below 10 s. */
const seconds = (ms: number) =>
  ms >= 10_000 ? String(Math.round(ms / 1000)) : (Math.round(ms / 100) / 10).toString();

/** What persona `name` last said about its connection (the operator console); undefined when not registered. */
export function personaConnection(name: string): PersonaConnection | undefined {
  return sources.get(name)?.();
}
