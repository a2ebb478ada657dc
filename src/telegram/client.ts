import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { TelegramClient } from "telegram";
import type { TelegramClientParams } from "telegram/client/telegramBaseClient.js";
import type { StringSession } from "telegram/sessions/index.js";

/** Where a persona's session string lives: sessions/<Name>.session (mode 0600, never logged). */
export function sessionPath(sessionsDir: string, agent: string): string {
  return join(sessionsDir, `${agent}.session`);
}

export function hasSession(sessionsDir: string, agent: string): boolean {
  return existsSync(sessionPath(sessionsDir, agent));
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

/**
 * Take an exclusive lock on a session: two processes on one auth key get
 * AUTH_KEY_DUPLICATED from Telegram and can lose the session. Returns the release function.
 */
export function lockSession(file: string): () => void {
  const lock = `${file}.lock`;
  let fd: number;
  try {
    fd = openSync(lock, "wx", 0o600);
  } catch {
    const pid = Number(readFileSync(lock, "utf8").trim());
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
      throw new Error(`${lock}: process ${pid} is using this session`);
    }
    // Left behind by a process that is gone: take it over.
    unlinkSync(lock);
    fd = openSync(lock, "wx", 0o600);
  }
  writeSync(fd, String(process.pid));
  closeSync(fd);
  return () => {
    try {
      unlinkSync(lock);
    } catch {
      /* already gone */
    }
  };
}

/** Builds the GramJS client; the default is the real one. Tests hand in one wired to the emulator. */
export type ClientFactory = (session: StringSession, apiId: number, apiHash: string, options: TelegramClientParams) => TelegramClient;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, but not ours
  }
}
