import { Api } from "telegram";
import { Raw } from "telegram/events/index.js";
import { UpdateConnectionState } from "telegram/network/index.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { inboxOf, world } from "./harness";

/** True when `p` settles within a few event-loop turns (the fake server answers on the next one). */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

function connectionStates(client: Parameters<typeof inboxOf>[0]): number[] {
  const states: number[] = [];
  client.addEventHandler((u: unknown) => {
    if (u instanceof UpdateConnectionState) states.push(u.state);
  }, new Raw({}));
  return states;
}

describe("connection modes: a dropped connection", () => {
  it("delivers nothing while down, still stores and moves pts, and answers requests only after the reconnect", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "before" });
    const states = connectionStates(client);
    const ptsBefore = emu.updates.state(persona).pts;

    await emu.net.dropConnection(persona);
    expect(emu.net.isConnected(persona)).toBe(false);
    expect(client.connected).toBe(false);
    await emu.post({ chat: dm, from: alice, text: "during 1" });
    await emu.post({ chat: dm, from: alice, text: "during 2" });
    emu.traffic.clearRequests();
    const send = client.sendMessage(dm.peerId, { message: "queued reply" });

    expect(await settlesSoon(send)).toBe(false);
    expect(emu.traffic.methods()).toEqual([]);
    expect(inbox.events.map((e) => e.message.text)).toEqual(["before"]);
    expect(emu.updates.state(persona).pts).toBe(ptsBefore + 2);
    expect(emu.history(dm).map((m) => m.text)).toEqual(["before", "during 1", "during 2"]);

    await emu.net.restoreConnection(persona);
    expect((await send)?.text).toBe("queued reply");
    expect(emu.net.isConnected(persona)).toBe(true);
    expect(states).toEqual([UpdateConnectionState.disconnected, UpdateConnectionState.connected]);
    // The queued send went out, then GramJS's own getMe() after a reconnect.
    await new Promise((r) => setImmediate(r));
    expect(emu.traffic.methods()).toEqual(["messages.SendMessage", "users.GetUsers"]);
    // What was posted meanwhile is not replayed: the client must ask for the difference.
    expect(inbox.events.map((e) => e.message.text)).toEqual(["before"]);
    const diff = (await client.invoke(
      new Api.updates.GetDifference({ pts: ptsBefore, date: 0, qts: 0 }),
    )) as Api.updates.Difference;
    expect(diff.newMessages.map((m) => (m as Api.Message).message)).toEqual([
      "during 1",
      "during 2",
      "queued reply",
    ]);
    // Live again.
    await emu.post({ chat: dm, from: alice, text: "after" });
    expect(inbox.last().text).toBe("after");
  });

  it("re-sends a request whose answer the outage swallowed", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.setDelay("messages.SetTyping", 20);
    const typing = client.invoke(
      new Api.messages.SetTyping({ peer: dm.peerId, action: new Api.SendMessageTypingAction() }),
    );
    await new Promise((r) => setImmediate(r));
    await emu.net.dropConnection(persona);
    await new Promise((r) => setTimeout(r, 30));
    expect(emu.traffic.typing(dm)).toEqual([]);
    emu.faults.setDelay("messages.SetTyping", 0);

    await emu.net.restoreConnection(persona);
    expect(await typing).toBe(true);
    expect(emu.traffic.typing(dm)).toHaveLength(1);
  });

  it("with reconnect 'manual' stays down after the network returns until the app calls connect()", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    await emu.net.dropConnection(persona, { reconnect: "manual" });
    const send = client.sendMessage(dm.peerId, { message: "stuck" });

    await emu.net.restoreConnection(persona);
    expect(await settlesSoon(send)).toBe(false);
    expect(emu.net.isConnected(persona)).toBe(false);

    expect(await client.connect()).toBe(true);
    expect((await send)?.text).toBe("stuck");
    expect(emu.net.isConnected(persona)).toBe(true);
    expect(emu.net.connectAttempts(persona)).toBe(1);
  });

  it("makes client.connect() resolve false while unreachable, like GramJS after its attempts", async () => {
    const { emu, persona, client } = world();
    const states = connectionStates(client);
    await emu.net.dropConnection(persona);
    expect(await client.connect()).toBe(false);
    expect(await client.connect()).toBe(false);
    expect(emu.net.connectAttempts(persona)).toBe(2);
    expect(states.filter((s) => s === UpdateConnectionState.disconnected).length).toBeGreaterThanOrEqual(2);

    await emu.net.restoreConnection(persona);
    expect(await client.connect()).toBe(true);
    expect(await client.isUserAuthorized()).toBe(true);
  });

  it("keeps a client attached during the outage (a restarted process) down too", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.net.dropConnection(persona);
    emu.detach(client);
    const restarted = createEmulatedClient(emu, persona);
    const inbox = inboxOf(restarted);
    await emu.post({ chat: dm, from: alice, text: "lost" });
    const state = restarted.invoke(new Api.updates.GetState());
    expect(await settlesSoon(state)).toBe(false);

    await emu.net.restoreConnection(persona);
    expect(((await state) as Api.updates.State).pts).toBe(emu.updates.state(persona).pts);
    expect(inbox.events).toEqual([]);
  });
});

describe("connection modes: silenced updates", () => {
  it("pushes nothing while requests keep working, until resumeUpdates", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const ptsBefore = emu.updates.state(persona).pts;
    emu.primeEntityCache(persona);

    emu.net.silenceUpdates(persona);
    await emu.post({ chat: dm, from: alice, text: "unheard dm" });
    await emu.post({ chat: sg, from: alice, text: "unheard group" });
    expect(inbox.events).toEqual([]);
    expect((await client.sendMessage(dm.peerId, { message: "still sending" }))?.text).toBe("still sending");
    expect(emu.net.isConnected(persona)).toBe(true);
    // updates.GetState shows movement the client never saw pushed (what a watchdog compares).
    const state = (await client.invoke(new Api.updates.GetState())) as Api.updates.State;
    expect(state.pts).toBe(ptsBefore + 2); // the DM and the persona's own send

    emu.net.resumeUpdates(persona);
    await emu.post({ chat: dm, from: alice, text: "heard" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["heard"]);
  });
});
