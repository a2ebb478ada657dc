/**
 * A message that only talks about her costs no plan: in a strict group, "Mira said …" goes to the
 * cheap addressing call, which answers it only when it speaks to her ("thanks Mira" does). The
 * real runtime and GramJS client on the emulator, the real Gemini SDK against the loopback fake.
 */
import { afterEach, describe, expect, it } from "vitest";
import { requestPurpose } from "../support/gemini-fake";
import { addressVerdict } from "../support/address-verdict";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const verdict = (addressed: boolean, messageId?: number) => addressVerdict(addressed, messageId);

describe("a message about her, not to her", () => {
  it("costs one cheap addressing call and no plan; one that speaks to her without a vocative is answered", async () => {
    h = await Harness.start();
    let thanks = -1;
    h.gemini.respondWith((b) =>
      requestPurpose(b) === "address"
        ? JSON.stringify(b).includes("thanks Mira")
          ? verdict(true, thanks)
          : verdict(false)
        : plan({ kind: "send", text: "anytime!" }),
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira said the film was great" });
    await h.pass(20_000);
    expect(h.gemini.requests.map((r) => requestPurpose(r.body))).toEqual(["address"]);
    expect(h.sent(h.group).filter((m) => m.text === "anytime!")).toEqual([]);

    thanks = (await h.emu.post({ chat: h.group, from: h.bob, text: "thanks Mira" })).id;
    await h.pass(20_000);
    expect(h.gemini.requests.map((r) => requestPurpose(r.body))).toEqual(["address", "address", "plan"]);
    expect(h.sent(h.group).map((m) => m.text)).toContain("anytime!");
    // Judged addressed, it is marked for what it is: it names her.
    expect(h.lastUserTurn()).toMatch(new RegExp(`⟦#${thanks} [^⟧]* · names you⟧ thanks Mira`));
  });

  it('"Mira, …" is said to her: planned at once, no addressing call', async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "sure" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "ok — Mira, are you in?" });
    await h.pass(20_000);
    expect(h.gemini.requests.map((r) => requestPurpose(r.body))).toEqual(["plan"]);
    expect(h.lastUserTurn()).toMatch(/ · calls you by name⟧ ok — Mira, are you in\?/);
  });
});
