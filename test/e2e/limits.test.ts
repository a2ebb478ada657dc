import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const sendsTo = (h: Harness, peer: (p: Api.TypeInputPeer) => boolean) =>
  h.emu.traffic.requests.filter(
    (r) =>
      r.request instanceof Api.messages.SendMessage &&
      peer((r.request as Api.messages.SendMessage).peer as Api.TypeInputPeer),
  );
const isChannel = (p: Api.TypeInputPeer) => p instanceof Api.InputPeerChannel;
const isBasicGroup = (p: Api.TypeInputPeer) => p instanceof Api.InputPeerChat;
const isUser = (p: Api.TypeInputPeer) => p instanceof Api.InputPeerUser;

describe("account-wide limits", () => {
  it("a flood wait on sends in two chats pauses sends everywhere, and the pause survives a restart", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const t0 = h.clock.now();
    h.emu.faults.failNext("messages.SendMessage", "FLOOD_WAIT_300", {
      times: 2,
      match: (r) => !isUser((r as Api.messages.SendMessage).peer as Api.TypeInputPeer),
    });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai ping" });
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, ping" });
    await h.pass(10_000);
    expect(sendsTo(h, (p) => isChannel(p) || isBasicGroup(p))).toHaveLength(2);

    // A third chat, never flooded itself, waits too.
    await h.emu.post({ chat: dm, from: h.carol, text: "ping" });
    await h.pass(50_000);
    expect(sendsTo(h, isUser)).toHaveLength(0);
    expect(h.gemini.requests).toHaveLength(3); // planning is not a send: it went on

    // The process dies and comes back within the pause: the pause is still there, also for a
    // chat that had nothing planned before the restart.
    h.crash();
    h.boot();
    const bobDm = h.emu.dm(h.account, h.bob);
    await h.emu.post({ chat: bobDm, from: h.bob, text: "ping" });
    await h.pass(200_000); // t0 + 260 s
    expect(sendsTo(h, isUser)).toHaveLength(0);
    expect(h.sent(dm)).toEqual([]);

    await h.pass(60_000); // past t0 + 300 s + typing
    expect(h.sent(dm).map((m) => m.text)).toEqual(["ok"]);
    expect(h.sent(bobDm).map((m) => m.text)).toEqual(["ok"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["ok"]);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["ok"]);
    const firstDmSend = sendsTo(h, isUser)[0]!;
    expect(firstDmSend.at - t0).toBeGreaterThanOrEqual(300_000);
  });

  it("one chat's flood wait alone stays that chat's", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    h.emu.faults.failNext("messages.SendMessage", "FLOOD_WAIT_300", {
      match: (r) => isChannel((r as Api.messages.SendMessage).peer as Api.TypeInputPeer),
    });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai ping" });
    await h.pass(10_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "ping" });
    await h.pass(10_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["ok"]);
    expect(h.sent(h.group)).toEqual([]);
  });

  it("PEER_FLOOD pauses sends to private chats with one error line, groups go on, and the pause survives a restart", async () => {
    h = await Harness.start();
    const carolDm = h.emu.dm(h.account, h.carol);
    const bobDm = h.emu.dm(h.account, h.bob);
    h.emu.faults.failNext("messages.SendMessage", "PEER_FLOOD", { code: 400 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: carolDm, from: h.carol, text: "hello?" });
    await h.pass(10_000);
    await h.emu.post({ chat: bobDm, from: h.bob, text: "hey" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);
    h.crash();
    h.boot();
    await h.emu.post({ chat: carolDm, from: h.carol, text: "still there?" });
    await h.pass(60_000);

    expect(sendsTo(h, isUser)).toHaveLength(1); // the one that met PEER_FLOOD; nothing since
    expect(h.sent(carolDm)).toEqual([]);
    expect(h.sent(bobDm)).toEqual([]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi"]);
    const errors = h.log.lines().filter((l) => l.level === 50);
    expect(errors).toEqual([]); // the second process logs no error: it restores the pause quietly
  });

  it("PEER_FLOOD: the error line is logged once, however many chats wait", async () => {
    h = await Harness.start();
    const carolDm = h.emu.dm(h.account, h.carol);
    const bobDm = h.emu.dm(h.account, h.bob);
    h.emu.faults.failNext("messages.SendMessage", "PEER_FLOOD", { code: 400 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: carolDm, from: h.carol, text: "hello?" });
    await h.pass(10_000);
    await h.emu.post({ chat: bobDm, from: h.bob, text: "hey" });
    await h.pass(30_000);
    const errors = h.log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.msg)).toContain("PEER_FLOOD");
    expect(sendsTo(h, isUser)).toHaveLength(1);
  });
});
