import { EventEmitter } from "node:events";
import { writeFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { ConnectionTCPFull } from "telegram/network/index.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { readEnv } from "../../src/config/env";
import { start } from "../../src/app/start";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";
import { liveTestEnv, loopbackSession, TEST_API_HASH } from "../support/live-env";

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe("npm start when Telegram cannot be reached", () => {
  afterEach(() => vi.restoreAllMocks());

  it("retries with one clean line per attempt and no console output; Ctrl-C exits 0 and releases the lock", async () => {
    const port = await closedPort();
    const agents = tempDir();
    writeFileSync(join(agents, "Mira.md"), "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n");
    const sessions = tempDir();
    const sessionString = await loopbackSession();
    writeFileSync(join(sessions, "Mira.session"), sessionString, { mode: 0o600 });
    const console_ = ["log", "error", "warn", "info", "debug"].map((m) => vi.spyOn(console, m as "log"));
    const log = captureLogger();
    const signals = new EventEmitter();
    // GramJS always dials port 80/443 on Node; aim the real TCP transport at the closed loopback port.
    class LoopbackTcp extends ConnectionTCPFull {
      constructor(o: ConstructorParameters<typeof ConnectionTCPFull>[0]) {
        super({ ...o, ip: "127.0.0.1", port });
      }
    }
    const running = start({
      env: liveTestEnv({ agents, sessions }),
      clientFactory: (s, apiId, apiHash, opts) =>
        new TelegramClient(s, apiId, apiHash, { ...opts, connection: LoopbackTcp }),
      connectBackoff: { firstMs: 20, maxMs: 80 },
      signals,
      logger: log.logger,
    });
    const retries = () => log.lines().filter((l) => l.msg === "cannot connect to Telegram; retrying");
    await until(() => retries().length >= 4);
    expect(existsSync(join(sessions, "Mira.session.lock"))).toBe(true);
    signals.emit("SIGINT");
    expect(await running).toBe(0);
    expect(existsSync(join(sessions, "Mira.session.lock"))).toBe(false);

    // Each attempt is one line naming the cause, with the delay before the next (capped).
    const lines = retries();
    expect(lines.slice(0, 4).map((l) => [l.attempt, l.retryInMs])).toEqual([
      [1, 20],
      [2, 40],
      [3, 80],
      [4, 80],
    ]);
    for (const l of lines) {
      expect(l.agent).toBe("Mira");
      expect(String(l.err)).toMatch(/ECONNREFUSED/);
      expect(l.level).toBe(40);
    }
    // No stack trace anywhere: not in the log, not on the console (GramJS's console.error is silenced).
    expect(log.text()).not.toMatch(/\n\s+at | {4}at /);
    for (const spy of console_) expect(spy).not.toHaveBeenCalled();
    expect(log.lines().filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(log.text()).not.toContain(sessionString);
    expect(log.text()).not.toContain(TEST_API_HASH);
  });

  it("a second signal exits at once", async () => {
    const port = await closedPort();
    const agents = tempDir();
    writeFileSync(join(agents, "Mira.md"), "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n");
    const sessions = tempDir();
    writeFileSync(join(sessions, "Mira.session"), await loopbackSession(), { mode: 0o600 });
    const signals = new EventEmitter();
    const exits: number[] = [];
    class LoopbackTcp extends ConnectionTCPFull {
      constructor(o: ConstructorParameters<typeof ConnectionTCPFull>[0]) {
        super({ ...o, ip: "127.0.0.1", port });
      }
    }
    const log = captureLogger();
    const running = start({
      env: readEnv({
        AGENTS_DIR: agents,
        SESSIONS_DIR: sessions,
        STATE_DB: join(tempDir(), "a.db"),
        TELEGRAM_API_ID: "1",
        TELEGRAM_API_HASH: "0123456789abcdef0123456789abcdef",
        GEMINI_API_KEY: "k",
      }),
      clientFactory: (s, apiId, apiHash, opts) =>
        new TelegramClient(s, apiId, apiHash, { ...opts, connection: LoopbackTcp }),
      connectBackoff: { firstMs: 20, maxMs: 80 },
      signals,
      exit: (code) => exits.push(code),
      logger: log.logger,
    });
    await until(() => log.lines().some((l) => l.msg === "cannot connect to Telegram; retrying"));
    signals.emit("SIGTERM");
    signals.emit("SIGTERM");
    expect(exits).toEqual([143]);
    expect(await running).toBe(0);
  });
});
