import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Point 1 of issue 38: a basic group upgraded to a supergroup under her (docs/chat-upgrades.md). */
describe("a group upgraded to a supergroup", () => {
  it("the answer planned before the upgrade lands in the supergroup; its next request shows the old history", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.club, from: h.bob, text: "the lighthouse walk was lovely" });
    // A note about the group, learnt before the upgrade (a chat note: no subject).
    h.runtime.memories.remember({
      chatId: h.club.peerId,
      content: "the club walks every saturday from the harbour",
      now: h.clock.now(),
    });
    const gate = latch();
    h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "saturday at ten" }) });
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, when do we meet?" });
    const passing = h.pass(3200);
    await until(() => h.gemini.requests.length === 1);
    const sg = h.emu.chats.upgrade(h.club); // while her answer is being planned
    await h.emu.idle();
    gate.release();
    await passing;
    await h.pass(30_000);

    expect(h.sent(sg).map((m) => m.text)).toEqual(["saturday at ten"]);
    expect(h.sent(h.club)).toEqual([]);
    // Nothing more was even tried in the dead chat.
    const toOld = h.emu.traffic.requests.filter(
      (r) =>
        r.account.id === h.account.id &&
        (r.method === "messages.SendMessage" || r.method === "messages.SetTyping") &&
        (r.request as { peer?: unknown }).peer instanceof Api.InputPeerChat,
    );
    expect(toOld).toEqual([]);

    h.gemini.script(plan({ kind: "send", text: "yes, from the harbour" }));
    await h.emu.post({ chat: sg, from: h.bob, text: "Mira, same route as the lighthouse walk?" });
    await h.pass(30_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["saturday at ten", "yes, from the harbour"]);
    const turn = h.lastUserTurn();
    expect(turn).toContain("⟦before the upgrade⟧");
    expect(turn).toContain("Bob: the lighthouse walk was lovely"); // named, though the basic group's update was not
    expect(turn).toContain("⟦memory this chat"); // the old group is this chat, not "another group"
    expect(turn).toContain("Mira, when do we meet?");
    expect(JSON.stringify(h.gemini.requests.at(-1)!.body)).toContain(
      "the club walks every saturday from the harbour",
    );
  });

  it("a mention waiting for its plan when the group is upgraded is answered in the supergroup", async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "on my way" }));
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, are you coming?" });
    const sg = h.emu.chats.upgrade(h.club); // before the quiet window ends: nothing planned yet
    await h.emu.idle();
    expect(h.gemini.requests).toHaveLength(0);
    await h.pass(30_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["on my way"]);
    expect(h.sent(h.club)).toEqual([]);
  });

  it("an upgrade while she is down is followed after the catch-up: her next answer goes to the supergroup", async () => {
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    h.gemini.script(plan({ kind: "send", text: "hello club" }));
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" });
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["hello club"]);
    h.crash();
    const sg = h.emu.chats.upgrade(h.club);
    await h.clock.advance(5_000);
    h.boot();
    await h.runtime.caughtUp;
    await h.pass(5_000);
    h.gemini.script(plan({ kind: "send", text: "yes, still here" }));
    await h.emu.post({ chat: sg, from: h.alice, text: "Mira, still with us?" });
    await h.pass(30_000);
    expect(h.sent(sg).map((m) => m.text)).toEqual(["yes, still here"]);
    expect(h.lastUserTurn()).toContain("⟦before the upgrade⟧");
    expect(h.lastUserTurn()).toContain("Mira, hi");
  });

  it("the owner's /pause in the old group still holds in the supergroup", async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "morning!" }));
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, morning" }); // she knows the group
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["morning!"]);
    await h.ownerSays(`/pause ${h.club.peerId}`);
    await h.pass(5000);
    expect(h.runtime.settings.get(h.club.peerId).paused).toBe(true);
    const sg = h.emu.chats.upgrade(h.club);
    await h.emu.idle();
    await h.pass(1000);
    h.gemini.script(plan({ kind: "send", text: "hi!" }));
    await h.emu.post({ chat: sg, from: h.alice, text: "Mira, are you there?" });
    await h.pass(30_000);
    expect(h.runtime.settings.get(sg.peerId).paused).toBe(true);
    expect(h.sent(sg)).toEqual([]);
    expect(h.gemini.requests).toHaveLength(1); // the answer before the pause; nothing planned after
  });

  it("an answer queued in the old group is held by the owner's /pause of the supergroup", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.club, from: h.bob, text: "the lighthouse walk was lovely" });
    const gate = latch();
    h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "saturday at ten" }) });
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, when do we meet?" });
    const passing = h.pass(3200);
    await until(() => h.gemini.requests.length === 1);
    const sg = h.emu.chats.upgrade(h.club); // while her answer is being planned
    await h.emu.idle();
    await h.emu.post({ chat: sg, from: h.bob, text: "oh, we are a supergroup now" }); // she knows it
    await h.ownerSays(`/pause ${sg.peerId}`); // the owner pauses the group where it now lives
    await h.emu.idle();
    gate.release();
    await passing;
    await h.pass(30_000);
    expect(h.runtime.settings.get(sg.peerId).paused).toBe(true);
    expect(h.sent(sg)).toEqual([]);
    expect(h.sent(h.club)).toEqual([]);
  });
});
