/**
 * GramJS 2.26.22's reconnect loses the requests queued while it pauses (they never settle). The
 * persona's answer is one of them here: its own time limit fails it, and the retry — same
 * random_id — sends it once the connection is back, exactly once.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe("requests GramJS's reconnect loses", () => {
  it("an answer queued during GramJS's reconnect pause is lost, times out, and is sent once after the reconnect", async () => {
    // The network on its own fake clock: the persona's time runs while GramJS's pause stands still.
    const net = new FakeClock();
    h = await Harness.start({ requestTimeoutMs: 300, emulator: { networkClock: net } });
    const dm = h.emu.dm(h.account, h.carol);
    // Carol wrote before: the persona knows her (no lookup of the sender later).
    h.gemini.script(plan({ kind: "send", text: "hello carol" }));
    await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    for (let i = 0; i < 50 && h.sent(dm).length === 0; i++) await h.pass(1_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["hello carol"]);
    await net.advance(18_000); // GramJS's ping loop: on its wake-up branch
    h.emu.net.setPingDelay(h.account, 60_000);
    await net.advance(9_000 + 3_000); // no pong in time: GramJS starts reconnecting
    expect(h.emu.net.reconnects(h.account)).toBe(1);
    // Its send loop packs one last batch (this request), then stops taking anything.
    const packed = h.client.invoke(new Api.updates.GetState());
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));

    h.gemini.script(plan({ kind: "send", text: "hi again, carol" }));
    await h.emu.post({ chat: dm, from: h.carol, text: "hey Mira" });
    const lost = () => h.emu.net.lostRequests(h.account);
    for (let i = 0; i < 50 && !lost().includes("messages.SendMessage"); i++) await h.pass(500);
    expect(lost()).toContain("messages.SendMessage");
    await new Promise((r) => setTimeout(r, 400)); // the send's own limit (300 ms, real time) runs out
    await h.pass(1_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["hello carol"]);

    h.emu.net.setPingDelay(h.account, 0);
    await net.advance(1_000); // GramJS's pause ends: disconnected, connected, the packed request goes out
    await packed;
    await h.pass(15_000); // the retry (10 s later), with the same random_id
    for (let i = 0; i < 30 && h.sent(dm).length < 2; i++) await h.pass(1_000);
    await h.pass(30_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["hello carol", "hi again, carol"]);
    // The lost send never reached Telegram; its retry did, once.
    expect(h.emu.traffic.methods(h.account).filter((m) => m === "messages.SendMessage")).toHaveLength(2);
  });
});
