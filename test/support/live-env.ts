/** The environment of an `npm start` test: real-account settings pointed at temp dirs and fakes. */
import { join } from "node:path";
import { AuthKey } from "telegram/crypto/AuthKey.js";
import { StringSession } from "telegram/sessions/index.js";
import { readEnv, type Env } from "../../src/config/env.js";
import { tempDir } from "./temp-dir.js";

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
