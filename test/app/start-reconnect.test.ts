import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { describe, expect, it } from "vitest";
import type { HealthSettings } from "../../src/app/live-persona";
import { start } from "../../src/app/start";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";
import { liveTestEnv, TEST_SESSION } from "../support/live-env";

/** `npm start` for one persona on the emulator; every DM is answered "hi carol". */
async function running(health?: HealthSettings) {
  const agents = tempDir();
  writeFileSync(
    join(agents, "Mira.md"),
    "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n",
  );
  const sessions = tempDir();
  writeFileSync(join(sessions, "Mira.session"), TEST_SESSION);
  const emu = new TelegramEmulator();
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const gemini = await GeminiFake.start();
  gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "hi carol" }] } }));
  const log = captureLogger();
  let shutdown!: () => void;
  const done = start({
    env: liveTestEnv({ agents, sessions, geminiBaseUrl: gemini.baseUrl }),
    clientFactory: (s, apiId, apiHash, opts) => {
      const client = new TelegramClient(s, apiId, apiHash, {
        ...opts,
        baseLogger: new Logger(LogLevel.NONE),
      });
      emu.attach(client, account);
      return client;
    },
    until: new Promise<void>((r) => (shutdown = r)),
    logger: log.logger,
    ...(health ? { health } : {}),
  });
  await until(() => log.lines().some((l) => l.msg === "agent started"));
  const dm = emu.dm(account, carol);
  const answers = () => emu.history(dm).filter((m) => m.fromId === account.id).length;
  const close = async () => {
    shutdown();
    expect(await done).toBe(0);
    await gemini.close();
  };
  return { emu, account, carol, dm, log, answers, close };
}

describe("catch-up after reconnects", () => {
  it("a DM sent while GramJS reconnects by itself is fetched and answered after the reconnect, without any further message", async () => {
    const r = await running();
    try {
      await r.emu.post({ chat: r.dm, from: r.carol, text: "hey Mira" });
      await until(() => r.answers() === 1);
      await r.emu.net.dropConnection(r.account, { reconnect: "auto" });
      await r.emu.post({ chat: r.dm, from: r.carol, text: "are you there? (sent during the blip)" });
      await r.emu.net.restoreConnection(r.account); // GramJS reconnects; nothing replays the DM
      await until(() => r.answers() === 2);
      expect(r.emu.history(r.dm).map((m) => m.text)).toEqual([
        "hey Mira",
        "hi carol",
        "are you there? (sent during the blip)",
        "hi carol",
      ]);
      // GramJS's own reconnect was enough: the product did not rebuild the connection.
      expect(r.emu.net.connectAttempts(r.account)).toBe(1);
    } finally {
      await r.close();
    }
  });

  it("the persona's own answer and read move pts without a pushed update: quiet probes afterwards do not declare the connection silent", async () => {
    const r = await running({ probeEveryMs: 25, silentAfterMs: 50 });
    try {
      await r.emu.post({ chat: r.dm, from: r.carol, text: "hey Mira" });
      await until(() => r.answers() === 1);
      const probes = () => r.emu.traffic.methods(r.account).filter((m) => m === "updates.GetState").length;
      const after = probes();
      await until(() => probes() >= after + 8, 5_000); // several quiet probe intervals
      expect(r.emu.net.connectAttempts(r.account)).toBe(1); // never rebuilt
    } finally {
      await r.close();
    }
  });
});
