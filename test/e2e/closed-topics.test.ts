import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests that write something to a chat. */
const WRITES = ["messages.SendMessage", "messages.SendMedia", "messages.SetTyping"];
/** Her messages in the forum: text and topic. */
const mine = (h: Harness, forum: Parameters<Harness["sent"]>[0]) =>
  h.emu.history(forum).filter((m) => m.fromId === h.account.id);
const writes = (h: Harness) => h.emu.traffic.methods(h.account).filter((m) => WRITES.includes(m));

/** Issue 38 point 3: a forum topic an admin closed (messageActionTopicEdit {closed}). */
describe("a closed forum topic", () => {
  it("a mention there costs no plan and no write request, also after a restart; another topic is answered; reopened, she answers there again", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    await h.emu.post({ chat: forum, from: h.alice, text: "morning", topicId: food });
    h.emu.chats.closeTopic(forum, travel);
    await h.pass(1000);
    h.emu.traffic.clearRequests();
    h.gemini.respondWith(() => plan({ kind: "send", text: "sure" }));

    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai trains or planes?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);
    expect(h.log.lines().some((l) => /the topic is closed/.test(String(l.msg)))).toBe(true);

    await h.restart();
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai still there?", topicId: travel });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);

    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai pizza tonight?", topicId: food });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => [m.text, m.topicId])).toEqual([["sure", food]]);

    h.emu.chats.closeTopic(forum, travel, false);
    await h.pass(1000);
    await h.emu.post({ chat: forum, from: h.alice, text: "@mira_ai open again?", topicId: travel });
    await h.pass(30_000);
    expect(mine(h, forum).map((m) => m.topicId)).toEqual([food, travel]);
  });
});
