import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests that write something to a chat. */
const WRITES = ["messages.SendMessage", "messages.SendMedia", "messages.SetTyping"];

/** Issue 38 point 3, continued: a DM partner who deletes their account while she answers. */
describe("a DM partner whose account was deleted, learnt from a refused send", () => {
  it("the send refused with INPUT_USER_DEACTIVATED records it (kept across a restart): a later message there costs no plan and no request", async () => {
    // Telegram's shapes: a DM message comes as UpdateShortMessage, with no user object.
    h = await Harness.start({ emulator: { updateShapes: "telegram" } });
    const dm = h.emu.dm(h.account, h.bob);
    const gate = latch();
    h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "see you at eight" }) });
    await h.emu.post({ chat: dm, from: h.bob, text: "what's the plan for tonight?" });
    const passing = h.pass(5000);
    await until(() => h.gemini.requests.length === 1);
    h.emu.deleteAccount(h.bob); // while she writes; no update says so
    gate.release();
    await passing;
    await h.pass(60_000);
    expect(h.sent(dm)).toEqual([]);
    expect(h.runtime.entities.get(String(h.bob.id))?.gone).toBe(true);

    await h.restart();
    h.emu.traffic.clearRequests();
    h.gemini.respondWith(() => plan({ kind: "send", text: "hello?" }));
    // A late copy of a message sent before the deletion (the emulator lets a deleted user post).
    await h.emu.post({ chat: dm, from: h.bob, text: "and who is driving?" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(h.emu.traffic.methods(h.account).filter((m) => WRITES.includes(m))).toEqual([]);
    expect(h.log.lines().some((l) => /may not write in this chat/.test(String(l.msg)))).toBe(true);

    // Someone else's DM is planned and answered as ever.
    const other = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: other, from: h.carol, text: "are you coming tonight?" });
    await h.pass(60_000);
    expect(h.sent(other).map((m) => m.text)).toEqual(["hello?"]);
  });
});
