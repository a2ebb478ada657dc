/**
 * `npm start` while Telegram refuses the account's connections (the emulator's network is down),
 * on a fake clock: the persona keeps retrying with capped backoff for as long as it takes, then
 * connects, catches up on what arrived meanwhile and answers it; a SIGTERM while it waits stops
 * it with status 0 and the session lock released.
 */
import { EventEmitter } from "node:events";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentRuntime } from "../../src/runtime/agent-runtime";
import { FakeClock } from "../../src/base/clock";
import { start } from "../../src/app/start";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { emulatedClientFactory, liveTestEnv, TEST_SESSION } from "../support/live-env";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";
import { until } from "../support/wait";

const PERSONA =
  "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n\n# Quiet Window\n0\n";

/** A persona whose account has run once (its update state is stored), and a world to run it in again. */
async function world() {
  const agents = tempDir();
  writeFileSync(join(agents, "Mira.md"), PERSONA);
  const sessions = tempDir();
  writeFileSync(join(sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
  const emu = new TelegramEmulator();
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const gemini = await GeminiFake.start();
  gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "back now, hi carol" }] } }));
  const env = liveTestEnv({ agents, sessions, geminiBaseUrl: gemini.baseUrl });
  // The first run records the account's update state, so the next start can catch up from it.
  const first = latchedStart();
  const done = start({
    env,
    clientFactory: emulatedClientFactory(emu, account),
    until: first.promise,
    logger: captureLogger().logger,
    onRunning: (r) => first.running(r),
  });
  await (
    await first.runtime
  ).caughtUp;
  first.release();
  expect(await done).toBe(0);
  return { env, emu, account, carol, gemini, lock: join(sessions, "Mira.session.lock") };
}

function latchedStart() {
  let release!: () => void;
  let running!: (r: AgentRuntime) => void;
  const promise = new Promise<void>((r) => (release = r));
  const runtime = new Promise<AgentRuntime>((r) => (running = r));
  return { promise, release, running, runtime };
}

/** Move fake time in steps, letting real work (GramJS, HTTP to the Gemini fake) run between them. */
async function advance(clock: FakeClock, ms: number, step = 1000): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe("npm start while Telegram refuses connections", () => {
  it("keeps retrying through a 2-minute refusal, then connects, catches up and answers what arrived meanwhile", async () => {
    const w = await world();
    await w.emu.net.dropConnection(w.account, { reconnect: "manual" });
    const clock = new FakeClock(Date.now());
    const log = captureLogger();
    const signals = new EventEmitter();
    let settled = false;
    const runtime = latchedStart();
    const running = start({
      env: w.env,
      clientFactory: emulatedClientFactory(w.emu, w.account),
      clock,
      signals,
      logger: log.logger,
      onRunning: (r) => runtime.running(r),
    }).finally(() => (settled = true));
    try {
      const dm = w.emu.dm(w.account, w.carol);
      await w.emu.post({ chat: dm, from: w.carol, text: "are you there? (sent while Mira cannot connect)" });
      await advance(clock, 120_000);
      const retries = log.lines().filter((l) => l.msg === "cannot connect to Telegram; retrying");
      // 1, 2, 4 … 64 s: every attempt is one line; the process is still there, waiting.
      expect(retries.length).toBeGreaterThanOrEqual(7);
      expect(retries.map((l) => l.retryInMs)).toEqual(
        expect.arrayContaining([1000, 2000, 4000, 8000, 16000, 32000, 60000]),
      );
      expect(settled).toBe(false);
      expect(existsSync(w.lock)).toBe(true);

      await w.emu.net.restoreConnection(w.account);
      await advance(clock, 60_000); // the next attempt (at most 60 s later) connects
      await (
        await runtime.runtime
      ).caughtUp;
      const answered = () => w.emu.history(dm).some((m) => m.fromId === w.account.id);
      for (let i = 0; i < 100 && !answered(); i++) await advance(clock, 1000);
      await advance(clock, 10_000);
      expect(
        w.emu
          .history(dm)
          .filter((m) => m.fromId === w.account.id)
          .map((m) => m.text),
      ).toEqual(["back now, hi carol"]);
    } finally {
      signals.emit("SIGTERM");
      expect(await running).toBe(0);
      await w.gemini.close();
    }
    expect(existsSync(w.lock)).toBe(false);
  });

  it("SIGTERM while it waits to connect: exit 0 and the lock released", async () => {
    const w = await world();
    await w.emu.net.dropConnection(w.account, { reconnect: "manual" });
    const clock = new FakeClock(Date.now());
    const log = captureLogger();
    const signals = new EventEmitter();
    const running = start({
      env: w.env,
      clientFactory: emulatedClientFactory(w.emu, w.account),
      clock,
      signals,
      logger: log.logger,
    });
    try {
      await until(() => log.lines().some((l) => l.msg === "cannot connect to Telegram; retrying"));
      await advance(clock, 10_000);
      expect(existsSync(w.lock)).toBe(true);
    } finally {
      signals.emit("SIGTERM");
      expect(await running).toBe(0);
      await w.gemini.close();
    }
    expect(existsSync(w.lock)).toBe(false);
    expect(log.lines().filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
