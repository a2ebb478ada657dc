import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Point 2 of issue 38: a question its asker deletes for everyone while her answer is on its way. */
describe("a question deleted before she answers", () => {
  it("deleted while the plan is being made (a supergroup): the plan is dropped, nothing is typed or sent", async () => {
    h = await Harness.start();
    const gate = latch();
    h.gemini.script({
      after: gate.promise,
      then: plan({ kind: "send", text: "Sure: 12 Elm Street, flat 3" }),
    });
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what's your address?" });
    const passing = h.pass(3200); // planning starts after the quiet window and waits on the held answer
    await until(() => h.gemini.requests.length === 1);
    await h.emu.chats.deleteMessages(h.group, [ask.id]); // updateDeleteChannelMessages
    gate.release();
    await passing;
    await h.pass(30_000);
    expect(h.sent(h.group)).toEqual([]);
    expect(h.emu.traffic.methods(h.account)).not.toContain("messages.SetTyping");
    expect(h.runtime.messages.get(h.group.peerId, ask.id)?.deleted).toBe(true);
  });

  it("deleted while she types (a DM): the typing stops and the answer is not sent", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    h.gemini.script(plan({ kind: "send", text: "Sure: 12 Elm Street, flat 3. ".repeat(6) }));
    const ask = await h.emu.post({ chat: dm, from: h.carol, text: "what's your address?" });
    for (let i = 0; i < 60 && !h.emu.traffic.methods(h.account).includes("messages.SetTyping"); i++)
      await h.pass(500);
    expect(h.emu.traffic.methods(h.account)).toContain("messages.SetTyping");
    await h.emu.chats.deleteMessages(dm, [ask.id]); // updateDeleteMessages: no chat named
    await h.pass(60_000);
    expect(h.sent(dm)).toEqual([]);
    // The spell was ended (a cancel action), not left to run out.
    const actions = h.emu.traffic.typing(dm).map((t) => t.action);
    expect(actions.at(-1)).toBe("SendMessageCancelAction");
  });

  it("a question taken back while planned is not answered, and leaves what the model is shown for the next question", async () => {
    h = await Harness.start();
    const gate = latch();
    h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "at noon" }) });
    const a = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai my pin is 4321, remember it",
    });
    const passing = h.pass(3200);
    await until(() => h.gemini.requests.length === 1);
    await h.emu.chats.deleteMessages(h.group, [a.id]);
    gate.release();
    await passing;
    await h.pass(30_000);
    expect(h.sent(h.group)).toEqual([]); // the only question was taken back
    h.gemini.script(plan({ kind: "send", text: "noon works" }));
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai lunch when?" });
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["noon works"]);
    expect(h.lastUserTurn()).not.toContain("4321");
  });
});
