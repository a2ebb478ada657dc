/**
 * Messages as GramJS decodes them from the wire (the emulator's `strictTl`: every update goes
 * through TL bytes and back). GramJS's reader sets an absent optional field to `null`, not
 * `undefined` (telegram/tl/api.js `fromReader`: "args[argName] = null"), so a test on `!==
 * undefined` is true for every real message. Without strictTl the emulator hands GramJS the
 * objects it built, whose absent fields are undefined — which hid that a reply was stored as a
 * reply into another chat, every message as sent via a bot (so the owner's commands in Saved
 * Messages were ignored), typing outside a topic under a topic "null" and a preview without an
 * author unparsable. The forum-topic case passed before too; it guards the same reads.
 * docs/telegram-facts.md.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe("messages decoded from the wire (absent fields are null)", () => {
  it("a reply is stored as a reply in this chat, and a mention replying to bob is answered with bob's message named", async () => {
    h = await Harness.start({ emulator: { strictTl: true } });
    const first = await h.emu.post({ chat: h.group, from: h.alice, text: "lunch anyone?" });
    const second = await h.emu.post({ chat: h.group, from: h.bob, text: "sure, 12:30", replyTo: first.id });
    await h.pass(30_000);
    const stored = h.runtime.messages.get(h.group.peerId, second.id);
    expect(stored).toMatchObject({ text: "sure, 12:30", replyToId: first.id });

    const ask = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai and you?",
      replyTo: second.id,
    });
    h.gemini.script(plan({ kind: "send", text: "count me in", reply_to: ask.id }));
    await h.pass(20_000);
    expect(h.nowParts()).toEqual([expect.stringContaining(`[↩ reply to #${second.id} [Bob](tg:@bob)]`)]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["count me in"]);
  });

  it("the owner's commands in Saved Messages are run and answered", async () => {
    h = await Harness.start({ emulator: { strictTl: true } });
    await h.ownerSays("/status");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1) ?? "").toContain("Status of Mira");
  });

  it("in a forum topic a plain message is in the topic, not a reply to its root", async () => {
    h = await Harness.start({ emulator: { strictTl: true } });
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const travel = h.emu.createTopic(forum, "Travel");
    await h.pass(1000);
    const m = await h.emu.post({ chat: forum, from: h.alice, text: "trains or planes?", topicId: travel });
    await h.pass(5_000);
    const stored = h.runtime.messages.get(forum.peerId, m.id);
    expect(stored).toMatchObject({ topicId: travel });
    expect(stored?.replyToId).toBeUndefined();
  });
});

describe("typing and link previews decoded from the wire", () => {
  it("in a supergroup she waits while the author is still typing, and answers both parts at once", async () => {
    h = await Harness.start({ emulator: { strictTl: true } });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are you around?" });
    await h.pass(1000);
    // Typing outside a forum topic: top_msg_id is absent, so GramJS decodes it as null.
    await h.emu.chats.userTyping(h.group, h.alice);
    await h.pass(3000);
    expect(h.gemini.requests).toHaveLength(0);
    await h.emu.post({ chat: h.group, from: h.alice, text: "I need a hand with the slides" });
    h.gemini.script(plan({ kind: "send", text: "sure, send them over" }));
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(h.lastUserTurn()).toContain("I need a hand with the slides");
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["sure, send them over"]);
  });

  it("a message with a link preview that names no author or site is stored and shown with its preview", async () => {
    h = await Harness.start({ emulator: { strictTl: true } });
    h.emu.webPages.register("https://news.example/rain", { type: "article", title: "Rain all week in Riga" });
    const link = await h.emu.post({ chat: h.group, from: h.bob, text: "look https://news.example/rain" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what do you think?" });
    h.gemini.script(plan({ kind: "send", text: "bring an umbrella" }));
    await h.pass(20_000);
    expect(h.runtime.messages.get(h.group.peerId, link.id)?.media?.webpage).toMatchObject({
      title: "Rain all week in Riga",
    });
    expect(h.historyParts()).toEqual([
      expect.stringMatching(
        /⟧ \[link news\.example, article: "Rain all week in Riga"\]\nlook https:\/\/news\.example\/rain$/,
      ),
    ]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["bring an umbrella"]);
  });
});
