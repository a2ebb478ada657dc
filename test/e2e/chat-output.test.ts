/**
 * Her output is a chat message: a plan that copies the request's markup — a `⟦…⟧` header, a
 * `[↩ reply to …]` line, a `(tg:…)` reference — reaches the chat cleaned, or not at all. The real
 * runtime and GramJS client on the emulator, the real Gemini SDK against the loopback fake; the
 * assertions are on what the chat shows.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe("what reaches the chat", () => {
  it("a send that copies a header, a reply line and a reference arrives as the words alone, @alice a real mention", async () => {
    h = await Harness.start();
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai who has the keys?" });
    h.gemini.script(
      plan({
        kind: "send",
        text: `⟦#${ask.id + 1} Mira (you) · 12:00⟧ [↩ reply to #${ask.id} [Alice](tg:@alice)] ask [Bob](tg:@bob), I think`,
      }),
    );
    await h.pass(20_000);
    const mine = h.emu.history(h.group).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => m.text)).toEqual(["ask @bob, I think"]);
    expect(mine[0]!.text).not.toMatch(/[⟦⟧↩]|tg:/);
  });

  it("a send that is nothing but markup sends nothing; the rest of the plan still runs", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const hi = await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    h.gemini.script(
      plan(
        { kind: "send", text: `⟦#${hi.id + 1} Mira (you) · 12:00⟧` },
        { kind: "send", text: "hey carol!" },
      ),
    );
    await h.pass(20_000);
    expect(
      h.emu
        .history(dm)
        .filter((m) => m.fromId === h.account.id)
        .map((m) => m.text),
    ).toEqual(["hey carol!"]);
  });
});
