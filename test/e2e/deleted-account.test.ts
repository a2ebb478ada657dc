import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests that write something to a chat. */
const WRITES = ["messages.SendMessage", "messages.SendMedia", "messages.SetTyping"];

/** Issue 38 point 1: a DM partner whose account was deleted (their user object says `deleted`). */
describe("a DM partner whose account was deleted", () => {
  it("their question, waiting while she was down, costs no plan and no send once the catch-up shows the account deleted; another DM is answered", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.bob);
    h.crash();
    await h.emu.post({ chat: dm, from: h.bob, text: "what's the plan for tonight?" });
    h.emu.deleteAccount(h.bob);
    h.boot();
    await h.runtime.caughtUp;
    h.emu.traffic.clearRequests();
    h.gemini.respondWith(() => plan({ kind: "send", text: "see you at eight" }));
    await h.pass(120_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.emu.traffic.methods(h.account).filter((m) => WRITES.includes(m))).toEqual([]);
    expect(h.sent(dm)).toEqual([]);
    expect(h.log.lines().some((l) => /may not write in this chat/.test(String(l.msg)))).toBe(true);

    // Someone else's DM is planned and answered as ever.
    const other = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: other, from: h.carol, text: "are you coming tonight?" });
    await h.pass(120_000);
    expect(h.sent(other).map((m) => m.text)).toEqual(["see you at eight"]);
  });
});
