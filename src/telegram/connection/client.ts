import { loginCommand } from "./account-errors";
import {
  chmodSync,
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ConfigError, fsReason } from "../../config/config-error";
import type { TelegramClient } from "telegram";
import type { TelegramClientParams } from "telegram/client/telegramBaseClient.js";
import type { StringSession } from "telegram/sessions/index.js";

/** Where a persona's session string lives: sessions/<Name>.session (mode 0600, never logged). */
export function sessionPath(sessionsDir: string, agent: string): string {
  return join(sessionsDir, `${agent}.session`);
}

/**
 * Whether the persona has a session file. No file (or no sessions directory) is "no session";
 * a directory or file that exists but cannot be read is a ConfigError, never "no session" —
 * or an unreadable directory would quietly start the offline sandbox instead of the accounts.
 */
export function hasSession(sessionsDir: string, agent: string): boolean {
  const file = sessionPath(sessionsDir, agent);
  const dirProblem = (e: unknown) =>
    new ConfigError({
      file: sessionsDir,
      problem: `cannot be read: ${fsReason(e)}`,
      fix: `give the user running npm start access to it (chmod u+rwx ${sessionsDir})`,
    });
  try {
    if (!statSync(file).isFile())
      throw new ConfigError({
        file,
        problem: "is not a file",
        fix: `remove it, then log in again: ${loginCommand(agent)}`,
      });
    return true;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw dirProblem(e);
  }
  // Not there — or in a directory that cannot be listed.
  try {
    readdirSync(sessionsDir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw dirProblem(e);
  }
  return false;
}

/**
 * A session file that is there must be usable: readable by this user, and not empty (an empty
 * file is a login that never finished). Throws a ConfigError naming the file and the fix;
 * never echoes the content (it is the account's key).
 */
export function checkSessionFile(file: string, agent: string): void {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `cannot be read: ${fsReason(e)}`,
      fix: `make it readable by the user running npm start (chmod 600 ${file}, owned by that user), or log in again: ${loginCommand(agent)}`,
    });
  }
  if (text.trim() === "")
    throw new ConfigError({
      file,
      problem: "is empty (no session string)",
      fix: `log in again: ${loginCommand(agent)}`,
    });
}

/**
 * A session string is the account: make sure only its owner can read the file. A wider mode
 * is narrowed to 0600 (and the caller told), never silently accepted.
 */
export function secureSessionFile(file: string): boolean {
  const mode = statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return false;
  chmodSync(file, 0o600);
  return true;
}

/** Locks this process holds, released by an exit handler however the process ends (process.exit included). */
const heldLocks = new Set<string>();
let exitHookInstalled = false;

/** What `lockSession` found: a lock left by a process that is gone, which it took over. */
export interface LockTakeover {
  readonly staleLock: string;
  readonly deadPid: number;
}

/** A session is in use by a live process. */
export class SessionInUseError extends ConfigError {
  constructor(
    lock: string,
    readonly pid: number,
  ) {
    super({
      file: lock,
      problem: `process ${pid} is using this session`,
      fix: "stop that process first (one session must never run in two processes at once: Telegram ends it with AUTH_KEY_DUPLICATED)",
    });
    this.name = "SessionInUseError";
  }
}

/**
 * Take an exclusive lock on a session: two processes on one auth key get AUTH_KEY_DUPLICATED
 * from Telegram and can lose the session. A lock whose process is gone (killed, crashed) is
 * taken over; `onTakeover` is told (one log line). Returns the release function; the lock is
 * also released when the process exits by any other way (an exit handler), and only if it is
 * still ours.
 */
export function lockSession(file: string, onTakeover?: (t: LockTakeover) => void): () => void {
  const lock = `${file}.lock`;
  let fd: number | undefined;
  for (let attempt = 0; fd === undefined; attempt++) {
    try {
      fd = openSync(lock, "wx", 0o600);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt >= 2) {
        throw new ConfigError({
          file: lock,
          problem: `cannot be created: ${fsReason(e)}`,
          fix: "give the user running npm start write access to the sessions directory",
        });
      }
      let pid: number;
      try {
        pid = Number(readFileSync(lock, "utf8").trim());
      } catch {
        continue; // released meanwhile: try again
      }
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) throw new SessionInUseError(lock, pid);
      // Left behind by a process that is gone: take it over.
      try {
        unlinkSync(lock);
      } catch {
        /* another process took it over first: the next attempt finds its lock */
      }
      onTakeover?.({ staleLock: lock, deadPid: pid });
    }
  }
  writeSync(fd, String(process.pid));
  closeSync(fd);
  heldLocks.add(lock);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on("exit", () => {
      for (const l of heldLocks) releaseIfOurs(l);
    });
  }
  return () => {
    heldLocks.delete(lock);
    releaseIfOurs(lock);
  };
}

function releaseIfOurs(lock: string): void {
  try {
    if (readFileSync(lock, "utf8").trim() === String(process.pid)) unlinkSync(lock);
  } catch {
    /* already gone */
  }
}

/** Builds the GramJS client; the default is the real one. Tests hand in one wired to the emulator. */
export type ClientFactory = (
  session: StringSession,
  apiId: number,
  apiHash: string,
  options: TelegramClientParams,
) => TelegramClient;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, but not ours
  }
}
