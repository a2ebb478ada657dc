import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { describe, expect, it } from "vitest";
import { start } from "../../src/app/start";
import { packageInfo } from "../../src/config/client-identity";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";
import { emulatedClientFactory, liveTestEnv, TEST_API_HASH, TEST_SESSION } from "../support/live-env";

describe("npm start with a session", () => {
  it("runs the persona on its account, narrows the session file to 0600, locks it, and shuts down cleanly", async () => {
    const agents = tempDir();
    writeFileSync(
      join(agents, "Mira.md"),
      "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n",
    );
    const sessions = tempDir();
    const session = join(sessions, "Mira.session");
    writeFileSync(session, TEST_SESSION);
    chmodSync(session, 0o644);

    const emu = new TelegramEmulator();
    const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
    const carol = emu.addUser({ firstName: "Carol", username: "carol" });
    const gemini = await GeminiFake.start();
    gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "hi carol" }] } }));
    const log = captureLogger();
    let shutdown!: () => void;
    const running = start({
      env: liveTestEnv({ agents, sessions, geminiBaseUrl: gemini.baseUrl }),
      clientFactory: (s, apiId, apiHash, opts) => {
        const client = new TelegramClient(s, apiId, apiHash, {
          ...opts,
          baseLogger: new Logger(LogLevel.NONE),
        });
        emu.attach(client, account); // the account's Telegram is the emulator
        return client;
      },
      until: new Promise<void>((r) => (shutdown = r)),
      logger: log.logger,
    });
    try {
      await until(() => log.lines().some((l) => l.msg === "agent started"));
      expect(emu.traffic.methods(account).slice(0, 2)).toEqual(["updates.GetState", "users.GetUsers"]); // authorized? who am I?
      expect(statSync(session).mode & 0o777).toBe(0o600);
      expect(existsSync(`${session}.lock`)).toBe(true);
      // initConnection named this project and its version, not the machine's OS and "1.0".
      expect(emu.auth.devices(account)).toEqual([
        expect.objectContaining({ deviceModel: packageInfo().name, appVersion: packageInfo().version }),
      ]);

      const dm = emu.dm(account, carol);
      await emu.post({ chat: dm, from: carol, text: "hey Mira" });
      await until(() => emu.history(dm).some((m) => m.fromId === account.id));
      expect(emu.history(dm).map((m) => m.text)).toEqual(["hey Mira", "hi carol"]);
    } finally {
      shutdown();
      expect(await running).toBe(0);
      await gemini.close();
    }
    expect(existsSync(`${session}.lock`)).toBe(false);
    // (The mode is checked above; the operator is told once.)
    expect(log.lines().filter((l) => l.level === 40 && String(l.msg).includes("0600"))).toHaveLength(1);
    expect(log.text()).not.toContain(TEST_API_HASH);
    expect(log.text()).not.toContain("test-key");
  });
});

describe("session lock", () => {
  it("refuses a session locked by a live process and takes over one left by a dead process", async () => {
    const { lockSession } = await import("../../src/telegram/connection/client");
    const file = join(tempDir(), "Mira.session");
    writeFileSync(file, "");
    writeFileSync(`${file}.lock`, String(process.pid));
    expect(() => lockSession(file)).toThrow(new RegExp(`process ${process.pid} is using this session`));
    writeFileSync(`${file}.lock`, "2147483646"); // no such process
    const takeovers: unknown[] = [];
    const release = lockSession(file, (t) => takeovers.push(t));
    expect(takeovers).toEqual([{ staleLock: `${file}.lock`, deadPid: 2147483646 }]);
    expect(readFileSync(`${file}.lock`, "utf8")).toBe(String(process.pid));
    release();
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("is released however the process ends: process.exit (a second Ctrl-C) included", () => {
    const file = join(tempDir(), "Mira.session");
    const code = `import { lockSession } from ${JSON.stringify(join(__dirname, "../../src/telegram/connection/client.ts"))};
      lockSession(${JSON.stringify(file)}); process.exit(130);`;
    const r = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(130);
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it("npm start takes over a lock left by a dead process, with one warning line", async () => {
    const agents = tempDir();
    writeFileSync(join(agents, "Mira.md"), "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n");
    const sessions = tempDir();
    writeFileSync(join(sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
    writeFileSync(join(sessions, "Mira.session.lock"), "2147483646");
    const emu = new TelegramEmulator();
    const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
    const log = captureLogger();
    let shutdown!: () => void;
    const running = start({
      env: liveTestEnv({ agents, sessions }),
      clientFactory: emulatedClientFactory(emu, account),
      until: new Promise<void>((r) => (shutdown = r)),
      logger: log.logger,
    });
    await until(() => log.lines().some((l) => l.msg === "agent started"));
    shutdown();
    expect(await running).toBe(0);
    // One warning naming the process whose lock was taken over.
    const warnings = log.lines().filter((l) => l.level === 40 && String(l.msg).includes("2147483646"));
    expect(warnings).toHaveLength(1);
    expect(existsSync(join(sessions, "Mira.session.lock"))).toBe(false);
  });
});
