import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const HOUR = 3_600_000;
const warnings = (text: RegExp) => h.log.lines().filter((l) => l.level === 40 && text.test(String(l.msg)));

describe("a local clock that is wrong or jumps: message ages are Telegram's, waits keep their length", () => {
  it("the local clock set 2 h ahead: a mention is still answered (its age is judged by Telegram's time), with one warning saying so", async () => {
    h = await Harness.start();
    h.clock.jump(2 * HOUR);
    await h.pass(1_000);
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, are you there?" });
    h.gemini.script(plan({ kind: "send", text: "right here", reply_to: ask.id }));
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "Mira, me too?" });
    h.gemini.script(plan({ kind: "send", text: "you too" }));
    await h.pass(20_000);

    expect(h.sent(h.group).map((m) => m.text)).toEqual(["right here", "you too"]);
    expect(h.runtime.messages.get(h.group.peerId, ask.id)?.text).toBe("Mira, are you there?");
    // Told once (not per message), with how far and which way.
    expect(warnings(/local clock is 2h 00m ahead of Telegram's/)).toHaveLength(1);
  });

  it("the local clock set 1 h back during a quiet window: the answer is planned when it was due, not an hour later", async () => {
    h = await Harness.start();
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, quick question" });
    h.gemini.script(plan({ kind: "send", text: "go ahead", reply_to: ask.id }));
    await h.pass(1_000); // inside the 3 s quiet window
    h.clock.jump(-HOUR);
    await h.pass(20_000);

    expect(h.gemini.requests).toHaveLength(1);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["go ahead"]);
    expect(
      warnings(/system clock was set 1h 00m back; \d+ waiting tasks keep their remaining wait/),
    ).toHaveLength(1);
    // Telegram dated the next message an hour past the local clock: said once.
    await h.emu.post({ chat: h.group, from: h.bob, text: "Mira, and me?" });
    h.gemini.script(plan({ kind: "send", text: "you as well" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["go ahead", "you as well"]);
    expect(warnings(/local clock is 1h 00m behind Telegram's/)).toHaveLength(1);
  });
  it("the clock set back 1 h while the process was down: a quiet window that was running is not stretched by the hour after the restart", async () => {
    h = await Harness.start();
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, one more thing" });
    h.gemini.script(plan({ kind: "send", text: "yes?", reply_to: ask.id }));
    await h.pass(1_000); // inside the 3 s quiet window
    await h.runtime.stop();
    h.clock.jump(-HOUR);
    await h.restart();
    await h.pass(20_000);

    expect(h.sent(h.group).map((m) => m.text)).toEqual(["yes?"]);
    expect(warnings(/system clock was set back at least (59m 5\ds|1h 00m) since the last run/)).toHaveLength(
      1,
    );
  });
});
