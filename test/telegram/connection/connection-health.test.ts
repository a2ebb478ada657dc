import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { TelegramClient } from "telegram";
import { NewMessage, type NewMessageEvent } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/base/clock";
import type { AccountLostError } from "../../../src/tasks/errors";
import { AccountLink } from "../../../src/telegram/connection/account-link";
import { clientIdentity } from "../../../src/config/client-identity";
import {
  backoffDelay,
  ConnectionHealth,
  watchUpdates,
  type ConnectionHealthOptions,
} from "../../../src/telegram/connection/connection-health";
import { TelegramEmulator } from "../../../emulator";
import { captureLogger } from "../../support/log-capture";
import { tempDir } from "../../support/temp-dir";
import { until } from "../../support/wait";

/** One account on the emulator behind the product's AccountLink, watched on a fake clock. */
async function watched(more?: (link: AccountLink) => Partial<ConnectionHealthOptions>) {
  const clock = new FakeClock();
  // GramJS's ping loop runs on the same fake clock: a ping every 9 fake seconds.
  const emu = new TelegramEmulator({ now: () => clock.now(), networkClock: clock });
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const alice = emu.addUser({ firstName: "Alice", username: "alice" });
  const sessionFile = join(tempDir(), "Mira.session");
  writeFileSync(sessionFile, "");
  const log = captureLogger();
  const link = new AccountLink({
    sessionFile,
    credentials: { apiId: 1, apiHash: "0123456789abcdef0123456789abcdef", identity: clientIdentity() },
    logger: log.logger,
    clock,
    requestTimeoutMs: 50, // a probe nobody answers fails after 50 ms of real time
    clientFactory: (s, apiId, apiHash, opts) => {
      const client = new TelegramClient(s, apiId, apiHash, opts);
      emu.attach(client, account);
      return client;
    },
  });
  await link.connect(new AbortController().signal);
  const seen: string[] = [];
  link.client.addEventHandler(
    (e: NewMessageEvent) => void seen.push(e.message.text),
    new NewMessage({ incoming: true }),
  );
  const calls = { down: 0, restored: 0, lost: [] as AccountLostError[] };
  const health = new ConnectionHealth({
    connection: link,
    clock,
    logger: log.logger,
    probeEveryMs: 60_000,
    silentAfterMs: 120_000,
    backoff: { firstMs: 1_000, maxMs: 4_000 },
    onDown: () => calls.down++,
    onRestored: () => void calls.restored++,
    onAccountLost: (e) => calls.lost.push(e),
    ...more?.(link),
  });
  const unwatch = watchUpdates(link.client, health);
  health.start();
  const dm = emu.dm(account, alice);
  const post = (text: string) => emu.post({ chat: dm, from: alice, text });
  const msgs = (m: string) => log.lines().filter((l) => l.msg === m);
  const requests = (method: string) => emu.traffic.methods(account).filter((m) => m === method).length;
  const close = async () => {
    health.stop();
    unwatch();
    await link.close();
  };
  return { emu, account, clock, log, link, health, calls, seen, post, msgs, requests, close };
}

describe("connection watchdog", () => {
  it("notices a connection that silently stops delivering (pts moves, no updates) and rebuilds it", async () => {
    const w = await watched();
    try {
      await w.post("one");
      expect(w.seen).toEqual(["one"]);
      w.emu.net.silenceUpdates(w.account);
      await w.clock.advance(60_000); // first probe since the last update: pts noted
      await w.post("two (never pushed)");
      await w.clock.advance(60_000); // pts moved, nothing arrived for 2 min: silent
      await until(() => w.calls.restored === 1);

      expect(w.calls.down).toBe(1);
      // The operator's one warning says why: how long nothing came.
      const lost = w.log.lines().filter((l) => l.level === 40 && l.reason !== undefined);
      expect(lost).toHaveLength(1);
      expect(String(lost[0]!.reason)).toContain("no updates for 120 s");
      expect(w.emu.net.connectAttempts(w.account)).toBe(2); // connect at start + the rebuild
      // The new connection delivers again; what was missed is the catch-up's job (onRestored).
      await w.post("three");
      expect(w.seen).toEqual(["one", "three"]);
      // A quiet account (pts does not move) is not "silent".
      await w.clock.advance(10 * 60_000);
      expect(w.calls.down).toBe(1);
      expect(w.emu.net.connectAttempts(w.account)).toBe(2);
    } finally {
      await w.close();
    }
  });

  it("with our own pts known: a gap is fetched first; only a server still ahead at a later probe, with nothing pushed, is silent", async () => {
    let local = 0;
    let catchUps = 0;
    const w = await watched((link) => ({
      localPts: () => local,
      // The catch-up: afterwards we have what the server had.
      onBehind: async () => {
        catchUps++;
        local = (await link.probe()).pts;
      },
    }));
    try {
      await w.post("one");
      local = (await w.link.probe()).pts;
      w.emu.net.silenceUpdates(w.account);
      await w.post("two (never pushed)");
      await w.clock.advance(60_000); // server ahead: catch up, no reconnect
      await until(() => catchUps === 1);
      await w.clock.advance(60_000); // nothing new: we have everything, quiet is fine
      expect(catchUps).toBe(1);
      await w.post("three (never pushed)");
      await w.clock.advance(60_000); // ahead again: catch up first
      await until(() => catchUps === 2);
      expect(w.calls.down).toBe(0);
      await w.post("four (never pushed)");
      await w.clock.advance(60_000); // still ahead at the next probe, nothing pushed for 4 min: silent
      await until(() => w.calls.restored === 1);
      expect(w.calls.down).toBe(1);
      const lost = w.log.lines().filter((l) => l.level === 40 && l.reason !== undefined);
      expect(lost).toHaveLength(1);
      expect(String(lost[0]!.reason)).toContain("no updates for 240 s");
      await w.post("five");
      expect(w.seen).toEqual(["one", "five"]); // the rebuilt connection pushes again
    } finally {
      await w.close();
    }
  });

  it("notices a dead connection (probes unanswered), reconnects with capped backoff and no cap on attempts, logging each change once", async () => {
    const w = await watched();
    try {
      // GramJS reports the drop (UpdateConnectionState) and spends its one reconnect attempt.
      await w.emu.net.dropConnection(w.account, { reconnect: "manual" });
      await until(() => w.msgs("connection probe failed").length === 1); // at once: GramJS said it dropped
      expect(w.msgs("GramJS reports the connection to Telegram dropped; checking it now")).toHaveLength(1);
      await w.clock.advance(5_000); // the next probe comes 5 s later, not 60 s: dead
      await until(() => w.msgs("reconnect failed; retrying").length === 1);
      expect(w.calls.down).toBe(1);
      for (let i = 1; i < 5; i++) {
        await w.clock.advance(backoffDelay({ firstMs: 1_000, maxMs: 4_000 }, i));
        await until(() => w.msgs("reconnect failed; retrying").length === i + 1);
      }
      expect(w.msgs("reconnect failed; retrying").map((l) => l.retryInMs)).toEqual([
        1_000, 2_000, 4_000, 4_000, 4_000,
      ]);
      expect(w.msgs("connection to Telegram lost; reconnecting")).toHaveLength(1);
      expect(w.calls.restored).toBe(0);

      await w.emu.net.restoreConnection(w.account); // the network is back; only a connect() helps
      await w.clock.advance(4_000);
      await until(() => w.calls.restored === 1);
      expect(w.emu.net.isConnected(w.account)).toBe(true);
      expect(w.msgs("connection to Telegram restored")).toHaveLength(1);
      await w.post("after");
      expect(w.seen).toEqual(["after"]);
      expect(w.log.text()).not.toMatch(/\n\s+at /); // no stack traces
    } finally {
      await w.close();
    }
  });

  it("GramJS reconnecting by itself within the quick probes: no rebuild, the blip is caught up", async () => {
    let catchUps = 0;
    const w = await watched(() => ({ onBehind: async () => void catchUps++ }));
    try {
      await w.emu.net.dropConnection(w.account); // GramJS will reconnect by itself
      await until(() => w.msgs("connection probe failed").length === 1);
      await w.emu.net.restoreConnection(w.account);
      await until(() => catchUps === 1);
      await w.clock.advance(60_000);
      expect(w.calls.down).toBe(0); // no rebuild: the catch-up above fetched the blip
    } finally {
      await w.close();
    }
  });

  it("updatesTooLong is not proof of life: a connection that only says so is still found silent", async () => {
    const w = await watched();
    try {
      await w.post("one");
      w.emu.net.overflowUpdates(w.account); // from now on: one updatesTooLong, then nothing
      await w.clock.advance(60_000); // first probe since the last update: pts noted
      await w.post("two (only updatesTooLong is pushed)");
      await w.clock.advance(60_000);
      await until(() => w.calls.restored === 1);
      expect(w.calls.down).toBe(1);
      expect(w.emu.net.connectAttempts(w.account)).toBe(2); // connect at start + the rebuild
    } finally {
      await w.close();
    }
  });

  it("an RPC error on a probe is an answer (alive); an account-terminal one reports the account lost", async () => {
    const w = await watched();
    try {
      w.emu.faults.failNext("updates.GetState", "FLOOD_WAIT_5", { times: 3 });
      for (let i = 0; i < 3; i++) await w.health.check();
      expect(w.calls.down).toBe(0);
      w.emu.faults.revokeSession(w.account, "AUTH_KEY_DUPLICATED");
      await w.health.check();
      expect(w.calls.lost.map((e) => e.code)).toEqual(["AUTH_KEY_DUPLICATED"]);
      expect(w.health.state).toBe("stopped");
    } finally {
      await w.close();
    }
  });

  it("a drop is a drop: ten minutes of pongs taking 1.5 s (GramJS says disconnected, then connected, every 9 s) start no catch-up, no extra probe, no rebuild", async () => {
    let catchUps = 0;
    const w = await watched(() => ({ onBehind: async () => void catchUps++ }));
    try {
      await w.clock.advance(18_000); // two pings: the wake-up branch is on
      const probes = w.requests("updates.GetState");
      w.emu.net.setPingDelay(w.account, 1_500);
      await w.clock.advance(10 * 60_000);
      expect(w.emu.net.pings(w.account)).toBeGreaterThanOrEqual(55); // a ping 9 s after the last pong
      expect(catchUps).toBe(0);
      expect(w.requests("updates.GetState") - probes).toBe(10); // the regular probe, once a minute
      expect(w.calls.down).toBe(0);
      expect(w.emu.net.connectAttempts(w.account)).toBe(1);
      await w.post("still heard");
      expect(w.seen).toEqual(["still heard"]);
    } finally {
      await w.close();
    }
  });

  it("a pong that never comes: GramJS really reconnects, and that drop is caught up once", async () => {
    let catchUps = 0;
    const w = await watched(() => ({ onBehind: async () => void catchUps++ }));
    try {
      await w.clock.advance(18_000);
      w.emu.net.setPingDelay(w.account, 60_000);
      await w.clock.advance(9_000 + 3_000); // the wake-up ping times out: GramJS reconnects
      expect(w.emu.net.reconnects(w.account)).toBe(1);
      w.emu.net.setPingDelay(w.account, 0);
      await w.clock.advance(1_000); // its pause, then disconnected (reconnecting) and connected
      await until(() => catchUps === 1);
      await w.clock.advance(60_000);
      expect(catchUps).toBe(1);
      expect(w.calls.down).toBe(0); // GramJS's own reconnect was enough
    } finally {
      await w.close();
    }
  });

  it("a probe that goes unanswered once: a catch-up follows when the next one is answered", async () => {
    let catchUps = 0;
    const w = await watched(() => ({ onBehind: async () => void catchUps++ }));
    try {
      w.emu.faults.hang("updates.GetState", { when: "before-apply" });
      await w.clock.advance(60_000);
      await until(() => w.msgs("connection probe failed").length === 1);
      expect(catchUps).toBe(0);
      await w.clock.advance(60_000);
      await until(() => catchUps === 1);
      expect(w.calls.down).toBe(0);
    } finally {
      await w.close();
    }
  });

  it("never waits for a catch-up: one that never ends does not stop the probes, and a rebuild after it completes", async () => {
    let catchUps = 0;
    let local = 0;
    const w = await watched(() => ({
      localPts: () => local,
      onBehind: () => {
        catchUps++;
        return new Promise<never>(() => undefined); // hangs for good
      },
      onRestored: () => {
        w.calls.restored++;
        return new Promise<never>(() => undefined); // the catch-up after the rebuild hangs too
      },
    }));
    try {
      await w.post("one");
      local = (await w.link.probe()).pts;
      w.emu.net.silenceUpdates(w.account);
      await w.post("two (never pushed)");
      await w.clock.advance(60_000); // server ahead: a catch-up starts, and hangs
      await until(() => catchUps === 1);
      const probes = w.requests("updates.GetState");
      await w.clock.advance(60_000); // still ahead, nothing pushed: silent → rebuild
      await until(() => w.calls.restored === 1);
      await w.clock.advance(3 * 60_000);
      expect(w.requests("updates.GetState")).toBeGreaterThanOrEqual(probes + 4); // probing goes on
      expect(w.health.state).toBe("up");
      await w.post("three");
      expect(w.seen).toEqual(["one", "three"]);
    } finally {
      await w.close();
    }
  });
});
