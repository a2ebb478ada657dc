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

/** Issue 38 point 3, continued: closed topics and her rights (docs/telegram-facts.md "A closed forum topic"). */
describe("closed forum topics: what a refusal teaches, and an admin's right", () => {
  it("a topic closed before she joined: the first refused send (TOPIC_CLOSED) records it, so the next mention costs no plan and no request, also after a restart; reopened, she answers", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.alice, h.bob], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    h.emu.chats.closeTopic(forum, travel); // before she was there: she never sees it
    await h.emu.idle();
    await h.emu.chats.addMember(forum, h.account);
    await h.pass(1000);
    h.gemini.respondWith(() => plan({ kind: "send", text: "by train" }));
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai trains or planes?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1); // Telegram never told her: one plan, one refused send
    expect(mine(h, forum)).toEqual([]);

    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.bob, text: "@mira_ai so, trains?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(writes(h)).toEqual([]);
    expect(h.log.lines().some((l) => /the topic is closed/.test(String(l.msg)))).toBe(true);

    await h.restart();
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai still there?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(writes(h)).toEqual([]);

    h.emu.chats.closeTopic(forum, travel, false); // she sees the reopening
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai open again?", topicId: travel });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["by train", travel]]);
  });

  it("a deleted topic (TOPIC_DELETED): the refusal records it, the next mention there costs no plan and no request; other topics go on", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    await h.pass(1000);
    h.gemini.respondWith(() => plan({ kind: "send", text: "sure" }));
    h.emu.faults.failNext("messages.SendMessage", "TOPIC_DELETED", { peer: forum });
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai trains or planes?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(mine(h, forum)).toEqual([]);

    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai hello?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(writes(h)).toEqual([]);

    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai pizza tonight?", topicId: food });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["sure", food]]);
  });

  it("where she is an admin with manage_topics she answers in a closed topic; an admin without that right plans nothing there", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    await h.emu.chats.restrict(forum, { adminsWithoutTopicRights: [h.account] });
    h.emu.chats.closeTopic(forum, travel);
    await h.pass(1000);
    h.gemini.respondWith(() => plan({ kind: "send", text: "trains, always" }));
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai trains or planes?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(mine(h, forum)).toEqual([]);

    await h.emu.chats.restrict(forum, { admins: [h.account] }); // now she may manage topics
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai and now?", topicId: travel });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["trains, always", travel]]);
  });
});
