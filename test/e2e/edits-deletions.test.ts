import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe("edits and deletions", () => {
  it("an edit before planning: the plan quotes the new text, of the message and of what it replies to, with no request", async () => {
    h = await Harness.start();
    const keys = await h.emu.post({ chat: h.group, from: h.bob, text: "my keys are on the table" });
    const ask = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai where are Bob's keys? meet at 5?",
      replyTo: keys.id,
    });
    const requests = h.emu.traffic.requests.length;
    await h.emu.chats.editMessage(h.group, keys.id, "my keys are in the drawer");
    await h.emu.chats.editMessage(h.group, ask.id, "@mira_ai where are Bob's keys? meet at 6?");
    expect(h.emu.traffic.requests.length).toBe(requests); // an edit costs no Telegram request
    h.gemini.script(plan({ kind: "send", text: "In the drawer. 6 works." }));
    await h.pass(20_000);

    const turn = h.lastUserTurn();
    expect(h.nowParts()[0]).toContain(`[↩ reply to #${keys.id} [Bob](tg:@bob)]`);
    expect(h.historyParts()).toEqual([expect.stringMatching(/⟧ my keys are in the drawer$/)]);
    expect(turn).toContain("meet at 6?");
    expect(turn).not.toContain("table");
    expect(turn).not.toContain("meet at 5");
    expect(h.runtime.messages.get(h.group.peerId, keys.id)?.text).toBe("my keys are in the drawer");
  });

  it("an edit brings its own mention entities: the old ones never land in the new text, a new mention is a reference", async () => {
    h = await Harness.start();
    const dan = h.emu.addUser({ firstName: "Dan" }); // no username: a text mention
    const dm = h.emu.dm(h.account, h.carol);
    const danny = (offset: number) => [
      new Api.MessageEntityMentionName({ offset, length: 5, userId: returnBigInt(dan.id) }),
    ];
    const a = await h.emu.post({ chat: dm, from: h.carol, text: "ok, Danny knows", entities: danny(4) });
    const b = await h.emu.post({ chat: dm, from: h.carol, text: "see you all" });
    h.gemini.respondWith(() => plan());
    await h.pass(20_000); // planned (silence): the next question sees them as history
    await h.emu.chats.editMessage(dm, a.id, "ok, totally new words");
    await h.emu.chats.editMessage(dm, b.id, "see you, Danny", { entities: danny(9) });
    expect(h.runtime.messages.get(dm.peerId, a.id)?.mentions).toBeUndefined();
    expect(h.runtime.messages.get(dm.peerId, b.id)?.mentions).toEqual([
      { type: "mentionname", offset: 9, length: 5, userId: String(dan.id) },
    ]);

    await h.emu.post({ chat: dm, from: h.carol, text: "what did I say?" });
    await h.pass(20_000);
    expect(h.historyParts()).toEqual([
      expect.stringMatching(/⟧ ok, totally new words$/),
      expect.stringMatching(new RegExp(`⟧ see you, \\[Danny\\]\\(tg:user/${dan.id}\\)$`)),
    ]);
  });

  it("an edit in a DM and in a basic group updates the stored text", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const d = await h.emu.post({ chat: dm, from: h.carol, text: "helo" });
    const g = await h.emu.post({ chat: h.club, from: h.bob, text: "lunch at noom" });
    h.gemini.respondWith(() => plan());
    await h.emu.chats.editMessage(dm, d.id, "hello");
    await h.emu.chats.editMessage(h.club, g.id, "lunch at noon");
    expect(h.runtime.messages.get(dm.peerId, d.id)?.text).toBe("hello");
    expect(h.runtime.messages.get(h.club.peerId, g.id)?.text).toBe("lunch at noon");
  });

  it("a deleted message is marked, leaves the history, and shows as deleted where something replies to it", async () => {
    h = await Harness.start();
    const secret = await h.emu.post({ chat: h.group, from: h.bob, text: "the wifi password is hunter2" });
    const thanks = await h.emu.post({ chat: h.group, from: h.carol, text: "thanks!", replyTo: secret.id });
    await h.emu.chats.deleteMessages(h.group, [secret.id]);
    expect(h.runtime.messages.get(h.group.peerId, secret.id)).toMatchObject({
      deleted: true,
      text: "the wifi password is hunter2",
    });
    // Asked inside that thread, so carol's reply is in the request's lane.
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did I miss?", replyTo: thanks.id });
    h.gemini.script(plan());
    await h.pass(20_000);

    const turn = h.lastUserTurn();
    expect(turn).toContain(`[↩ reply to deleted msg #${secret.id}]\nthanks!`);
    expect(turn).not.toContain("hunter2");
  });

  it("a reply target deleted after the fetch but before planning shows as deleted", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const oops = await h.emu.post({ chat: dm, from: h.carol, text: "wrong chat, sorry" });
    await h.emu.post({ chat: dm, from: h.carol, text: "ignore that?", replyTo: oops.id });
    await h.emu.chats.deleteMessages(dm, [oops.id]); // no chat id on the wire: found by its per-account id
    h.gemini.script(plan());
    await h.pass(20_000);

    expect(h.lastUserTurn()).toContain(`[↩ reply to deleted msg #${oops.id}]\nignore that?`);
    expect(h.lastUserTurn()).not.toContain("wrong chat");
  });

  it("edits and deletions made while the persona was down are applied by the catch-up", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const g = await h.emu.post({ chat: h.group, from: h.bob, text: "party at 8" });
    const gone = await h.emu.post({ chat: h.group, from: h.bob, text: "secret" });
    const d = await h.emu.post({ chat: dm, from: h.carol, text: "see you tmrw" });
    const c = await h.emu.post({ chat: h.club, from: h.alice, text: "wrong group" });
    h.gemini.respondWith(() => plan());
    await h.pass(20_000);
    h.crash();
    await h.emu.chats.editMessage(h.group, g.id, "party at 9");
    await h.emu.chats.deleteMessages(h.group, [gone.id]);
    await h.emu.chats.editMessage(dm, d.id, "see you on Friday");
    await h.emu.chats.deleteMessages(h.club, [c.id]);
    h.boot();
    await h.runtime.caughtUp;

    const get = (chat: { peerId: string }, id: number) => h.runtime.messages.get(chat.peerId, id);
    expect(get(h.group, g.id)?.text).toBe("party at 9");
    expect(get(h.group, gone.id)?.deleted).toBe(true);
    expect(get(dm, d.id)?.text).toBe("see you on Friday");
    expect(get(h.club, c.id)?.deleted).toBe(true);
  });

  it("a message deleted before it was planned for is not answered", async () => {
    h = await Harness.start();
    const m = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai oops, ignore" });
    await h.emu.chats.deleteMessages(h.group, [m.id]);
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.sent(h.group)).toEqual([]);
  });
});
