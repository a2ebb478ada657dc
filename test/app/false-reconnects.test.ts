/**
 * `npm start` with GramJS's ping loop on the same fake clock as the persona: GramJS's "wake-up"
 * branch reports the connection disconnected whenever a pong takes over 1 s, and connected after
 * every pong. Those events alone must cost nothing (no catch-up, no rebuild); a connection that
 * really broke — GramJS reconnecting because a pong never came — is caught up once.
 */
import { EventEmitter } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { start } from "../../src/app/start";
import { metrics } from "../../src/metrics/metrics";
import type { AgentRuntime } from "../../src/runtime/agent-runtime";
import { TelegramEmulator } from "../../emulator";
import { GeminiFake } from "../support/gemini-fake";
import { emulatedClientFactory, liveTestEnv, TEST_SESSION } from "../support/live-env";
import { captureLogger } from "../support/log-capture";
import { tempDir } from "../support/temp-dir";

const PERSONA =
  "# Agent Name\nMira\n\n# Agent Instructions\nBe Mira.\n\n# Start Typing Delay\n0\n\n# Typing Speed\n100\n\n# Read Delay\n0\n\n# Quiet Window\n0\n";

/** Full catch-ups the persona ran so far (the catch-up chain counts each one). */
async function catchUps(): Promise<number> {
  return (await metrics.catchUpRuns.get()).values.find((v) => v.labels.agent === "Mira")?.value ?? 0;
}

/** Move fake time in steps, letting real work (GramJS, HTTP to the Gemini fake) run between them. */
async function advance(clock: FakeClock, ms: number, step = 1000): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    await clock.advance(step);
    await new Promise((r) => setTimeout(r, 1));
  }
}

async function running() {
  const agents = tempDir();
  writeFileSync(join(agents, "Mira.md"), PERSONA);
  const sessions = tempDir();
  writeFileSync(join(sessions, "Mira.session"), TEST_SESSION, { mode: 0o600 });
  const clock = new FakeClock(Date.now());
  const emu = new TelegramEmulator({ now: () => clock.now(), networkClock: clock });
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const gemini = await GeminiFake.start();
  gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "hi carol" }] } }));
  const signals = new EventEmitter();
  let onRunning!: (r: AgentRuntime) => void;
  const runtime = new Promise<AgentRuntime>((r) => (onRunning = r));
  const done = start({
    env: liveTestEnv({ agents, sessions, geminiBaseUrl: gemini.baseUrl }),
    clientFactory: emulatedClientFactory(emu, account),
    clock,
    signals,
    logger: captureLogger().logger,
    onRunning,
  });
  await (
    await runtime
  ).caughtUp;
  const dm = emu.dm(account, carol);
  const answers = () =>
    emu
      .history(dm)
      .filter((m) => m.fromId === account.id)
      .map((m) => m.text);
  const requests = (method: string) => emu.traffic.methods(account).filter((m) => m === method).length;
  const close = async () => {
    signals.emit("SIGTERM");
    expect(await done).toBe(0);
    await gemini.close();
  };
  return { clock, emu, account, carol, dm, answers, requests, close };
}

describe("GramJS's ping loop and the persona", () => {
  it("ten minutes of pongs taking 1.5 s: GramJS says disconnected and connected every ~10 s, and the persona makes no catch-up and no reconnect, and still answers", async () => {
    const r = await running();
    try {
      await advance(r.clock, 18_000); // GramJS's wake-up branch runs from the second ping on
      r.emu.net.setPingDelay(r.account, 1_500);
      r.emu.traffic.clearRequests();
      const before = await catchUps();
      await advance(r.clock, 5 * 60_000);
      await r.emu.post({ chat: r.dm, from: r.carol, text: "hey Mira" });
      await advance(r.clock, 5 * 60_000);

      expect(r.emu.net.pings(r.account)).toBeGreaterThanOrEqual(55);
      expect(r.answers()).toEqual(["hi carol"]);
      expect(await catchUps()).toBe(before); // no catch-up
      expect(r.requests("updates.GetState")).toBeLessThanOrEqual(11); // the minutely probe, nothing more
      expect(r.emu.net.connectAttempts(r.account)).toBe(1); // never rebuilt
    } finally {
      await r.close();
    }
  });

  it("a connection that stopped delivering and whose pong never comes: GramJS reconnects, and the DM it missed is fetched and answered, once", async () => {
    const r = await running();
    try {
      await advance(r.clock, 18_000);
      r.emu.net.silenceUpdates(r.account); // pushes are lost …
      await r.emu.post({ chat: r.dm, from: r.carol, text: "are you there? (never pushed)" });
      r.emu.net.setPingDelay(r.account, 60_000); // … and pongs no longer come in time
      r.emu.traffic.clearRequests();
      const before = await catchUps();
      await advance(r.clock, 9_000 + 3_000); // GramJS gives up on the pong and reconnects
      r.emu.net.setPingDelay(r.account, 0);
      await advance(r.clock, 30_000);

      expect(r.emu.net.reconnects(r.account)).toBe(1);
      // A catch-up after the real drop (the watchdog's own probe at the drop may ask for one more).
      expect(await catchUps()).toBeGreaterThan(before);
      expect(r.answers()).toEqual(["hi carol"]);
      expect(r.emu.net.connectAttempts(r.account)).toBe(1); // GramJS's own reconnect was enough
    } finally {
      await r.close();
    }
  });
});
