import { Raw } from "telegram/events/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

/**
 * Telegram's real shapes (the emulator's default): DMs as UpdateShortMessage and basic-group
 * messages as UpdateShortChatMessage carry no user objects; supergroup senders may be `min`. The
 * persona still names, recognises and answers senders — fetching one only when it will answer.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The class names of the updates the account's client receives from now on. */
function receivedShapes(harness: Harness): string[] {
  const seen: string[] = [];
  harness.client.addEventHandler((u: { className: string }) => {
    seen.push(u.className);
  }, new Raw({}));
  return seen;
}

describe("short updates and unknown senders", () => {
  it("answers a DM from a never-seen user that arrives as UpdateShortMessage", async () => {
    h = await Harness.start();
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const dm = h.emu.dm(h.account, dave);
    h.gemini.script(plan({ kind: "send", text: "hi Dave" }));
    const shapes = receivedShapes(h);
    await h.emu.post({ chat: dm, from: dave, text: "hello, who are you?" });
    await h.pass(20_000);
    expect(shapes[0]).toBe("UpdateShortMessage");
    expect(
      h.emu
        .history(dm)
        .filter((m) => m.fromId === h!.account.id)
        .map((m) => m.text),
    ).toEqual(["hi Dave"]);
    expect(h.lastUserTurn()).toContain("Dave");
    expect(h.runtime.messages.recent(String(dave.id), 1e9, 5).map((m) => m.senderName)).toEqual([
      "Dave",
      "Mira",
    ]);
  });

  it("skips a bot's short DM, after finding out it is a bot", async () => {
    h = await Harness.start();
    const bot = h.emu.addUser({ firstName: "Helper", username: "helper_bot", bot: true });
    const dm = h.emu.dm(h.account, bot);
    const shapes = receivedShapes(h);
    await h.emu.post({ chat: dm, from: bot, text: "Welcome! Press /start" });
    await h.pass(20_000);
    expect(shapes[0]).toBe("UpdateShortMessage");
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.emu.history(dm).filter((m) => m.fromId === h!.account.id)).toEqual([]);
    // Known as a bot from now on: its next message costs no request at all.
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: dm, from: bot, text: "Still there?" });
    await h.pass(5_000);
    expect(h.emu.traffic.methods(h.account)).toEqual([]);
  });

  it("stores basic-group short messages that do not address it with zero requests, and names the sender of one that does", async () => {
    h = await Harness.start();
    const shapes = receivedShapes(h);
    await h.emu.post({ chat: h.club, from: h.alice, text: "lunch?" });
    await h.pass(1_000);
    expect(shapes).toEqual(["UpdateShortChatMessage"]);
    expect(h.emu.traffic.methods(h.account)).toEqual([]);
    h.gemini.script(plan({ kind: "send", text: "yes please" }));
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, lunch?" });
    await h.pass(20_000);
    expect(h.lastUserTurn()).toContain("Bob");
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["yes please"]);
  });
});
