import { chmodSync, closeSync, existsSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Logger as PinoLogger } from "pino";
import { TelegramClient } from "telegram";
import type { TelegramClientParams } from "telegram/client/telegramBaseClient.js";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { StringSession } from "telegram/sessions/index.js";

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

/** GramJS's logger, routed into pino at warn and above (GramJS is chatty at info). */
class PinoBridge extends Logger {
  constructor(private readonly pino: PinoLogger) {
    super(LogLevel.WARN);
  }
  override log(level: LogLevel, message: string): void {
    const line = { component: "gramjs" };
    if (level === LogLevel.ERROR) this.pino.error(line, message);
    else if (level === LogLevel.WARN) this.pino.warn(line, message);
  }
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

const realClient: ClientFactory = (session, apiId, apiHash, options) => new TelegramClient(session, apiId, apiHash, options);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"; // exists, but not ours
  }
}

export interface ConnectOptions {
  readonly sessionFile: string;
  readonly apiId: number;
  readonly apiHash: string;
  readonly logger: PinoLogger;
  readonly clientFactory?: ClientFactory;
}

/**
 * Connect a saved session to Telegram. Every flood wait is thrown, never slept on inside GramJS
 * (floodSleepThreshold 0), so the scheduler can park the task and keep other chats moving.
 */
export async function connectSavedSession(o: ConnectOptions): Promise<{ client: TelegramClient; selfId: string }> {
  let session: StringSession;
  try {
    session = new StringSession(readFileSync(o.sessionFile, "utf8").trim());
  } catch (e) {
    // Never echo the file's content: it is the account's key.
    throw new Error(`${o.sessionFile}: not a valid session string (${e instanceof Error ? e.message : String(e)}); log in again`);
  }
  const client = (o.clientFactory ?? realClient)(session, o.apiId, o.apiHash, {
    baseLogger: new PinoBridge(o.logger),
    floodSleepThreshold: 0,
    connectionRetries: 5,
  });
  await client.connect();
  if (!(await client.checkAuthorization())) {
    await client.disconnect();
    throw new Error(`${o.sessionFile}: the session is no longer authorized; log in again`);
  }
  const me = await client.getMe();
  return { client, selfId: me.id.toString() };
}
