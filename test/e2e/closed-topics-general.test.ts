import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests that write something to a chat. */
const WRITES = ["messages.SendMessage", "messages.SendMedia", "messages.SetTyping"];
const writes = (h: Harness) => h.emu.traffic.methods(h.account).filter((m) => WRITES.includes(m));
const mine = (h: Harness, forum: Parameters<Harness["sent"]>[0]) =>
  h.emu.history(forum).filter((m) => m.fromId === h.account.id);

/**
 * Issue 38, left over: a forum's General topic (1) closed (docs/telegram-facts.md "A closed forum
 * topic"). Her sends there name no topic, so the refusal names none either.
 */
describe("a closed General topic", () => {
  it("closed before she joined: the refused send (TOPIC_CLOSED, naming no topic) is recorded for General, so the next mention there costs no plan and no request, also after a restart; other topics go on", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.alice, h.bob], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    h.emu.chats.closeTopic(forum, 1); // before she was there: she never sees it
    await h.emu.idle();
    await h.emu.chats.addMember(forum, h.account);
    await h.pass(1000);
    h.gemini.respondWith(() => plan({ kind: "send", text: "by train" }));
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai trains or planes?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1); // Telegram never told her: one plan, one refused send
    expect(mine(h, forum)).toEqual([]);

    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.bob, text: "@mira_ai so, trains?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(writes(h)).toEqual([]);
    expect(h.log.lines().some((l) => /the topic is closed/.test(String(l.msg)))).toBe(true);

    await h.restart();
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai still there?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(writes(h)).toEqual([]);

    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai and trains here?", topicId: travel });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["by train", travel]]);

    // Reopened: the refusal learnt for General gives way to the newer reopen, and she answers there.
    h.emu.chats.closeTopic(forum, 1, false);
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.bob, text: "@mira_ai open again?" });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([
      ["by train", travel],
      ["by train", undefined],
    ]);
  });

  it("closed while she is there: its service message (no topic header) shuts General, so a mention there costs no plan; reopened, she answers there", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    await h.pass(1000);
    h.emu.chats.closeTopic(forum, 1);
    await h.pass(1000);
    h.gemini.respondWith(() => plan({ kind: "send", text: "hello!" }));
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai hi?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);

    h.emu.chats.closeTopic(forum, 1, false);
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai open now?" });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["hello!", undefined]]);
  });
});
