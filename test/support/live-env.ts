/** The environment of an `npm start` test: real-account settings pointed at temp dirs and fakes. */
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { AuthKey } from "telegram/crypto/AuthKey.js";
import { StringSession } from "telegram/sessions/index.js";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import type { ClientFactory } from "../../src/telegram/connection/client";
import type { EmuUser, TelegramEmulator } from "../../emulator/index";
import { readEnv, type Env } from "../../src/config/env";
import { tempDir } from "./temp-dir";

/** The API hash the start tests use; they check it never reaches the logs. */
export const TEST_API_HASH = "0123456789abcdef0123456789abcdef";

export function liveTestEnv(o: { agents: string; sessions: string; geminiBaseUrl?: string }): Env {
  return readEnv({
    AGENTS_DIR: o.agents,
    SESSIONS_DIR: o.sessions,
    STATE_DB: join(tempDir(), "agents.db"),
    TELEGRAM_API_ID: "12345",
    TELEGRAM_API_HASH: TEST_API_HASH,
    GEMINI_API_KEY: "test-key",
    ...(o.geminiBaseUrl ? { GOOGLE_GEMINI_BASE_URL: o.geminiBaseUrl } : {}),
  });
}

/** A real session string; its DC id tells a test's client factory which emulated account it is. */
export async function sessionString(dcId: number): Promise<string> {
  const s = new StringSession("");
  s.setDC(dcId, "127.0.0.1", 443);
  const key = new AuthKey();
  await key.setKey(Buffer.alloc(256, dcId));
  s.setAuthKey(key);
  return s.save();
}

/**
 * A well-formed session string (StringSession's "1" + base64 of DC 2, 149.154.167.50:443 and a
 * 256-byte key of zeros): the start tests attach the emulator, so only its form matters, but an
 * empty file is refused as "no session string".
 */
export const TEST_SESSION = `1${Buffer.concat([Buffer.from([2, 149, 154, 167, 50, 0x01, 0xbb]), Buffer.alloc(256)]).toString("base64")}`;

/** Real GramJS clients (silent) whose Telegram is the emulator, as account `account`. */
export function emulatedClientFactory(emu: TelegramEmulator, account: EmuUser): ClientFactory {
  return (s, apiId, apiHash, opts) => {
    const client = new TelegramClient(s, apiId, apiHash, { ...opts, baseLogger: new Logger(LogLevel.NONE) });
    emu.attach(client, account);
    return client;
  };
}

/** A real session string (auth key and all) whose server is 127.0.0.1 (GramJS on Node dials port 80 there). */
export function loopbackSession(): Promise<string> {
  return sessionString(2);
}
