/**
 * False reconnects: an hour of GramJS's pings answered in 1.5 s. GramJS's ping loop (its own
 * code, on the fake clock: emulator/ping-loop.ts) takes its "wake-up" branch on every ping after
 * the first: each pong over 1 s dispatches `disconnected`, each pong `connected`. The persona runs
 * as `npm start` runs it — the real AccountLink, its connection watchdog and the runtime — and a
 * DM arrives every ten minutes. Goal: 0 catch-ups, 0 rebuilds, every DM answered. Then a pong that
 * never comes (GramJS really reconnects): that drop is caught up.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import pino from "pino";
import { TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { UpdateConnectionState } from "telegram/network/index.js";
import { FakeClock } from "../src/base/clock";
import { clientIdentity } from "../src/config/client-identity";
import { parsePersona } from "../src/config/persona";
import { validatePlan } from "../src/planning/plan-schema";
import type { Planner } from "../src/planning/planner";
import { ACCOUNT_BOX } from "../src/store/update-state";
import { AccountLink } from "../src/telegram/connection/account-link";
import { ConnectionHealth, watchUpdates } from "../src/telegram/connection/connection-health";
import { benchWorld, startRig, tearDownRig } from "./rig";

export interface FalseReconnectFigures {
  readonly hours: number;
  readonly pongDelayMs: number;
  /** Pings the server answered during the hour. */
  readonly pings: number;
  /** What GramJS dispatched meanwhile (its wake-up branch). */
  readonly gramjsEvents: { readonly disconnected: number; readonly connected: number };
  /** Catch-ups the persona started (goal 0). */
  readonly catchUps: number;
  /** The watchdog's probes (updates.getState; one a minute). */
  readonly probes: number;
  /** Connections rebuilt (goal 0). */
  readonly rebuilds: number;
  readonly dms: { readonly posted: number; readonly answered: number };
  /** Then a pong that never comes: GramJS reconnects, and the persona catches up (goal ≥ 1). */
  readonly realDrop: { readonly reconnects: number; readonly catchUps: number };
  /** Real time the hour took. */
  readonly wallSeconds: number;
}

/** A plan of one send, checked like a model's answer; no model, no cost. */
const onePlan: Planner = {
  plan: async (_prompt, check) =>
    validatePlan(JSON.stringify({ tasks: [{ kind: "send", text: "here" }] }), check),
};

export async function benchFalseReconnects(
  o: { hours?: number; pongDelayMs?: number } = {},
): Promise<FalseReconnectFigures> {
  const hours = o.hours ?? 1;
  const pongDelayMs = o.pongDelayMs ?? 1_500;
  const clock = new FakeClock();
  const world = benchWorld("bench-pings", clock, { pingsOnClock: true });
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const carol = emu.addUser({ firstName: "Carol", username: "carol" });
  const dm = emu.dm(me, carol);
  const logger = pino({ level: "silent" });
  const sessionFile = join(world.dir, "Mira.session");
  writeFileSync(sessionFile, "");
  const link = new AccountLink({
    sessionFile,
    credentials: { apiId: 1, apiHash: "0123456789abcdef0123456789abcdef", identity: clientIdentity() },
    logger,
    clock,
    clientFactory: (s, apiId, apiHash, opts) => {
      const client = new TelegramClient(s, apiId, apiHash, opts);
      emu.attach(client, me);
      return client;
    },
  });
  await link.connect(new AbortController().signal);
  const rig = startRig(world, me, {
    persona: parsePersona(
      "# Agent Name\nMira\n\n# Agent Instructions\nBenchmark persona.\n\n# Read Delay\n0\n\n# Quiet Window\n0\n",
      { file: "agents/Mira.md", promptDirs: [] },
    ),
    planner: onePlan,
    client: link.client,
    logger,
  });
  let catchUps = 0;
  const catchUp = async () => {
    catchUps++;
    await rig.runtime.catchUp();
  };
  const health = new ConnectionHealth({
    connection: link,
    clock,
    logger,
    localPts: () => rig.runtime.tracker.localPts(ACCOUNT_BOX),
    onBehind: catchUp,
    onRestored: catchUp,
  });
  const events = { disconnected: 0, connected: 0 };
  const raw = new Raw({});
  const count = (u: unknown) => {
    if (u instanceof UpdateConnectionState && u.state === UpdateConnectionState.disconnected)
      events.disconnected++;
    if (u instanceof UpdateConnectionState && u.state === UpdateConnectionState.connected) events.connected++;
  };
  link.client.addEventHandler(count, raw);
  const unwatch = watchUpdates(link.client, health);
  const probes = () => emu.traffic.methods(me).filter((m) => m === "updates.GetState").length;
  try {
    await rig.runtime.caughtUp;
    health.start();
    await clock.advance(18_000); // two pings: GramJS's wake-up branch from now on
    emu.net.setPingDelay(me, pongDelayMs);
    events.disconnected = events.connected = 0;
    const pings0 = emu.net.pings(me);
    const probes0 = probes();
    const started = performance.now();
    let posted = 0;
    for (let minute = 0; minute < hours * 60; minute++) {
      if (minute % 10 === 5) {
        await emu.post({ chat: dm, from: carol, text: `are you there? (${++posted})` });
      }
      await clock.advance(60_000);
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const hour = {
      pings: emu.net.pings(me) - pings0,
      gramjsEvents: { ...events },
      catchUps,
      probes: probes() - probes0,
      rebuilds: emu.net.connectAttempts(me) - 1,
      dms: { posted, answered: emu.history(dm).filter((m) => m.fromId === me.id).length },
    };
    // A pong that never comes: GramJS reconnects by itself — a real drop.
    const before = catchUps;
    emu.net.setPingDelay(me, 60_000);
    await clock.advance(12_000);
    emu.net.setPingDelay(me, 0);
    await clock.advance(30_000);
    return {
      hours,
      pongDelayMs,
      ...hour,
      realDrop: { reconnects: emu.net.reconnects(me), catchUps: catchUps - before },
      wallSeconds,
    };
  } finally {
    health.stop();
    unwatch();
    link.client.removeEventHandler(count, raw);
    await tearDownRig(rig);
    await link.close();
  }
}
