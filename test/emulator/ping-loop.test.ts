import { Api, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/index.js";
import { UpdateConnectionState } from "telegram/network/index.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { world } from "./harness";

const { connected, disconnected } = UpdateConnectionState;

/** The connection states GramJS dispatched, each with whether GramJS was reconnecting right then. */
function connectionStates(client: TelegramClient): { state: number; reconnecting: boolean }[] {
  const seen: { state: number; reconnecting: boolean }[] = [];
  const sender = () => (client as unknown as { _sender: { isReconnecting: boolean } })._sender;
  client.addEventHandler((u: unknown) => {
    if (u instanceof UpdateConnectionState)
      seen.push({ state: u.state, reconnecting: sender().isReconnecting });
  }, new Raw({}));
  return seen;
}

/** A world whose network (GramJS's ping loop included) runs on a fake clock. */
function onFakeClock() {
  const clock = new FakeClock();
  const w = world({ now: () => clock.now(), networkClock: clock });
  return { ...w, clock, states: connectionStates(w.client) };
}

/** True when `p` settled. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

describe("GramJS's ping loop against the emulator", () => {
  it("pings every 9 s; from the second pong on its wake-up branch reports 'connected' after each one, and nothing else", async () => {
    const { emu, persona, client, clock, states } = onFakeClock();
    // A client that never asked anything gets GramJS's getState at its first ping (it counts as 30
    // minutes without a request), which restarts the loop on its normal branch: ask something first.
    await client.invoke(new Api.updates.GetState());
    await clock.advance(8_999);
    expect(emu.net.pings(persona)).toBe(0);
    await clock.advance(1);
    expect(emu.net.pings(persona)).toBe(1); // the first ping takes the normal branch: no event
    expect(states).toEqual([]);
    await clock.advance(9_000);
    expect(emu.net.pings(persona)).toBe(2);
    expect(states).toEqual([{ state: connected, reconnecting: false }]);
    await clock.advance(3_600_000 - 18_000); // the rest of an hour
    expect(emu.net.pings(persona)).toBe(400);
    expect(states.every((s) => s.state === connected)).toBe(true);
    // Every pong but two: the first, and the first after GramJS's own getState at 30 minutes
    // without a request (both on the normal branch).
    expect(states).toHaveLength(398);
    expect(emu.traffic.methods(persona).filter((m) => m === "updates.GetState")).toHaveLength(2);
    expect(emu.net.reconnects(persona)).toBe(0);
  });

  it("a pong slower than 1 s: 'disconnected', then 'connected' when it comes — GramJS is not reconnecting, and requests are untouched", async () => {
    const { emu, persona, alice, client, clock, states } = onFakeClock();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    await clock.advance(18_000); // two pings
    emu.net.setPingDelay(persona, 1_500);
    states.length = 0;
    await clock.advance(9_000 + 1_000); // the next ping, then its warning timer
    expect(states).toEqual([{ state: disconnected, reconnecting: false }]);
    // The connection is fine meanwhile: a request is answered.
    expect((await client.sendMessage(dm.peerId, { message: "still here" }))?.text).toBe("still here");
    await clock.advance(500);
    expect(states).toEqual([
      { state: disconnected, reconnecting: false },
      { state: connected, reconnecting: false },
    ]);
    expect(emu.net.reconnects(persona)).toBe(0);
    expect(emu.net.lostRequests(persona)).toEqual([]);
  });

  it("no pong within 3 s: GramJS reconnects — a request queued during its pause is lost for good, one packed before it is re-sent and answered, then getMe", async () => {
    const { emu, persona, alice, client, clock, states } = onFakeClock();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    await clock.advance(18_000);
    emu.net.setPingDelay(persona, 60_000); // a pong that comes too late
    states.length = 0;
    await clock.advance(9_000 + 3_000); // the ping times out: GramJS calls _sender.reconnect()
    expect(emu.net.reconnects(persona)).toBe(1);
    expect(states).toEqual([{ state: disconnected, reconnecting: false }]); // the 1 s warning
    emu.net.setPingDelay(persona, 0);
    emu.traffic.clearRequests();

    // The send loop wakes for the first request, packs it and stops; the next one stays queued.
    const packed = client.sendMessage(dm.peerId, { message: "packed before the pause" });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const queued = client.invoke(new Api.updates.GetState());
    await clock.advance(1_000); // GramJS's pause before it reconnects

    expect((await packed)?.text).toBe("packed before the pause");
    expect(await settled(queued)).toBe(false);
    expect(emu.net.lostRequests(persona)).toEqual(["updates.GetState"]);
    expect(states).toEqual([
      { state: disconnected, reconnecting: false },
      { state: disconnected, reconnecting: true }, // _disconnect() inside the reconnect
      { state: connected, reconnecting: false },
    ]);
    await new Promise((r) => setImmediate(r));
    expect(emu.traffic.methods(persona)).toEqual(["messages.SendMessage", "users.GetUsers"]);
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi", "packed before the pause"]);
  });

  it("asks updates.getState after 30 minutes without a request, as GramJS does to keep updates coming", async () => {
    const { emu, persona, client, clock } = onFakeClock();
    await client.invoke(new Api.updates.GetState());
    emu.traffic.clearRequests();
    await clock.advance(29 * 60_000);
    expect(emu.traffic.methods(persona)).toEqual([]);
    await clock.advance(2 * 60_000);
    expect(emu.traffic.methods(persona)).toEqual(["updates.GetState"]);
  });

  it("a dead link answers no ping: the loop skips pings while GramJS reconnects, and pings again once it is back", async () => {
    const { emu, persona, clock, states } = onFakeClock();
    await clock.advance(18_000);
    const before = emu.net.pings(persona);
    await emu.net.dropConnection(persona);
    expect(states.at(-1)).toEqual({ state: disconnected, reconnecting: true });
    await clock.advance(60_000);
    expect(emu.net.pings(persona)).toBe(before);
    expect(emu.net.reconnects(persona)).toBe(0); // GramJS was already reconnecting
    await emu.net.restoreConnection(persona);
    await clock.advance(18_000);
    expect(emu.net.pings(persona)).toBe(before + 2);
  });
});
