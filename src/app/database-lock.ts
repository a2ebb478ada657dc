/**
 * One process per state database. Two installs that share a `STATE_DB` (a copied sessions
 * folder, a second checkout, a second unit) would run the same accounts twice — on Telegram two
 * processes on one session end in AUTH_KEY_DUPLICATED — and write over each other's update
 * state. So the database knows who holds it: a lock file beside it, `<database>.lock`, holding
 * the process's pid, host and start time. It sits beside the file itself (its real path: a
 * symbolic link, a relative or another spelling of the path, a bind mount of its directory all
 * lead to the same lock), so a second `npm start` is refused with one line naming the holder,
 * whichever path it came by.
 *
 * The holder touches the file every {@link HEARTBEAT_MS}. A lock is stale — taken over, with
 * one warning line naming the process it was — when its process no longer runs on this host,
 * or when it was not touched for {@link STALE_MS} (a process on another host or container that
 * is gone, or a pid reused after a reboot). It is released on every way out but `kill -9`
 * (the next start takes that one over).
 */
import {
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { systemClock } from "../base/clock";
import type { Clock } from "../base/types";
import { ConfigError } from "../config/config-error";

/** How often the holder touches its lock. */
const HEARTBEAT_MS = 30_000;
/** A lock not touched for this long is stale, whoever wrote it. */
const STALE_MS = 5 * 60_000;

/** Locks this process holds, by their start time. */
const heldHere = new Map<string, string>();

interface Holder {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
}

/** What a stale lock said, when it was taken over. */
export interface DatabaseLockTakeover {
  readonly lock: string;
  readonly holder: Holder | undefined;
}

/** The database is held by another live process. */
export class DatabaseInUseError extends ConfigError {
  constructor(
    readonly database: string,
    readonly lock: string,
    readonly holder: Holder,
  ) {
    super({
      file: database,
      problem: `in use by process ${holder.pid} on ${holder.host} since ${holder.startedAt} (its lock: ${lock})`,
      fix: "stop that process first, or give this one its own STATE_DB (two processes on one database run the same accounts twice; Telegram ends such a session with AUTH_KEY_DUPLICATED)",
    });
    this.name = "DatabaseInUseError";
  }
}

/** The lock file of the database at `path`: beside the file itself, however `path` names it. */
function databaseLockPath(path: string): string {
  let real = resolve(path);
  try {
    real = realpathSync(path);
  } catch {
    try {
      real = join(realpathSync(dirname(path)), basename(path)); // not created yet
    } catch {
      /* its directory does not exist yet either */
    }
  }
  return `${real}.lock`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, but not ours
  }
}

function readHolder(lock: string): Holder | undefined {
  try {
    const h = JSON.parse(readFileSync(lock, "utf8")) as Partial<Holder>;
    if (typeof h.pid === "number" && typeof h.host === "string" && typeof h.startedAt === "string")
      return { pid: h.pid, host: h.host, startedAt: h.startedAt };
  } catch {
    /* half-written or not ours: stale */
  }
  return undefined;
}

/** Whether the lock's holder may still run (see the file comment). */
function held(lock: string, h: Holder | undefined, now: number): boolean {
  if (!h) return false;
  let touched: number;
  try {
    touched = statSync(lock).mtimeMs;
  } catch {
    return false;
  }
  if (now - touched > STALE_MS) return false;
  if (h.host !== hostname()) return true;
  // Our own pid: held by this very process (a second start in it), or left by an earlier
  // process that had the same pid (a container restarted).
  if (h.pid === process.pid) return heldHere.get(lock) === h.startedAt;
  return alive(h.pid);
}

/**
 * Take the database's lock, or throw DatabaseInUseError naming its holder. A stale lock is
 * taken over (`onTakeover` says so). Returns the release (idempotent).
 */
export function lockDatabase(
  path: string,
  o: {
    readonly onTakeover?: (t: DatabaseLockTakeover) => void;
    /** The wall clock the lock's file times are judged by (the system's: they are the filesystem's). */
    readonly clock?: Clock;
  } = {},
): () => void {
  const clock = o.clock ?? systemClock;
  const lock = databaseLockPath(path);
  if (!existsSync(dirname(lock))) return () => undefined; // no database there yet: openDatabase makes the directory
  const me: Holder = { pid: process.pid, host: hostname(), startedAt: new Date(clock.now()).toISOString() };
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 2)
        throw new ConfigError({
          file: lock,
          problem: `cannot be created: ${(e as Error).message}`,
          fix: "give the user running npm start write access to the database's directory",
        });
      const h = readHolder(lock);
      if (held(lock, h, clock.now())) throw new DatabaseInUseError(path, lock, h!);
      try {
        unlinkSync(lock);
      } catch {
        /* another process took it over first: the next attempt finds its lock */
      }
      o.onTakeover?.({ lock, holder: h });
    }
  }
  writeSync(fd, JSON.stringify(me));
  closeSync(fd);
  heldHere.set(lock, me.startedAt);
  const ours = () => readHolder(lock)?.pid === me.pid && readHolder(lock)?.startedAt === me.startedAt;
  let beat: unknown;
  const touch = () => {
    try {
      const now = new Date(clock.now());
      if (ours()) utimesSync(lock, now, now);
    } catch {
      /* removed by hand: nothing to touch */
    }
    beat = clock.setTimeout(touch, HEARTBEAT_MS);
  };
  beat = clock.setTimeout(touch, HEARTBEAT_MS);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clock.clearTimeout(beat);
    heldHere.delete(lock);
    process.off("exit", release);
    try {
      if (ours()) unlinkSync(lock);
    } catch {
      /* already gone */
    }
  };
  process.on("exit", release);
  return release;
}

/** The warning line of a takeover. */
export function describeTakeover(t: DatabaseLockTakeover): string {
  return t.holder
    ? `took over the database lock ${t.lock} of process ${t.holder.pid} on ${t.holder.host} (since ${t.holder.startedAt}), which no longer runs (it did not stop cleanly)`
    : `took over the database lock ${t.lock}, which named no running process`;
}
