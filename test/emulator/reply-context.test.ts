import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

describe("getReplyMessage() against the emulator", () => {
  it("uses one channels.GetMessages (InputMessageReplyTo) in a supergroup", async () => {
    const { emu, persona, alice, bob, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice, bob] });
    const original = await emu.post({ chat: sg, from: bob, text: "the original" });
    await emu.post({ chat: sg, from: alice, text: "the reply", replyTo: original.id });
    emu.traffic.clearRequests();

    const replied = await inbox.last().getReplyMessage();

    expect(replied?.id).toBe(original.id);
    expect(replied?.text).toBe("the original");
    expect(replied?.senderId?.toString()).toBe(String(bob.id));
    expect(emu.traffic.methods()).toEqual(["channels.GetMessages"]);
    const request = emu.traffic.requests[0]?.request as Api.channels.GetMessages;
    expect(request.id[0]).toBeInstanceOf(Api.InputMessageReplyTo);
    expect((request.id[0] as Api.InputMessageReplyTo).id).toBe(inbox.last().id);
  });

  it("uses messages.GetMessages without a peer in a basic group", async () => {
    const { emu, persona, alice, bob, inbox } = world();
    const group = emu.createGroup({ title: "G", members: [persona, alice, bob] });
    const original = await emu.post({ chat: group, from: bob, text: "the original" });
    await emu.post({ chat: group, from: alice, text: "the reply", replyTo: original.id });
    emu.traffic.clearRequests();

    const replied = await inbox.last().getReplyMessage();

    expect(replied?.text).toBe("the original");
    expect(replied?.chatId?.toString()).toBe(group.peerId);
    expect(emu.traffic.methods()).toEqual(["messages.GetMessages"]);
  });

  it("returns undefined once the replied-to message is deleted (supergroup and basic group)", async () => {
    const { emu, persona, alice, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const group = emu.createGroup({ title: "G", members: [persona, alice] });

    for (const chat of [sg, group]) {
      const original = await emu.post({ chat, from: alice, text: "soon gone" });
      await emu.post({ chat, from: alice, text: "the reply", replyTo: original.id });
      emu.chats.deleteMessages(chat, [original.id]);
      emu.traffic.clearRequests();

      expect(await inbox.last().getReplyMessage()).toBeUndefined();
      // GramJS retries by the plain id after MessageEmpty: two requests, both answered empty.
      expect(emu.traffic.methods()).toEqual(
        chat.kind === "supergroup"
          ? ["channels.GetMessages", "channels.GetMessages"]
          : ["messages.GetMessages", "messages.GetMessages"],
      );
    }
  });

  it("follows a reply inside a forum topic to its target", async () => {
    const { emu, persona, alice, inbox } = world();
    const forum = emu.createSupergroup({ title: "F", members: [persona, alice], forum: true });
    const topic = emu.createTopic(forum, "Films");
    const first = await emu.post({ chat: forum, from: alice, text: "topic opener", topicId: topic });
    await emu.post({ chat: forum, from: alice, text: "reply", replyTo: first.id });

    expect((await inbox.last().getReplyMessage())?.text).toBe("topic opener");
  });
});

describe("partial quotes (a reply that quotes part of its target)", () => {
  for (const updateShapes of ["full", "telegram"] as const) {
    it(`puts the quote in the reply header, with its UTF-16 offset (${updateShapes} updates, supergroup and DM)`, async () => {
      const { emu, persona, alice, inbox } = world({ updateShapes });
      const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
      const dm = emu.dm(persona, alice);
      for (const chat of [sg, dm]) {
        const original = await emu.post({
          chat,
          from: alice,
          text: "🎬 the film starts at 8, tickets at the door",
        });
        await emu.post({ chat, from: alice, text: "so, 8?", replyTo: original.id, quote: "starts at 8" });
        const header = inbox.last().replyTo as Api.MessageReplyHeader;
        expect(header.replyToMsgId).toBe(original.id);
        expect(header.quote).toBe(true);
        expect(header.quoteText).toBe("starts at 8");
        // "🎬" is two UTF-16 code units.
        expect(header.quoteOffset).toBe(12);
      }
      // A plain reply carries no quote.
      const plain = await emu.post({ chat: sg, from: alice, text: "plain" });
      await emu.post({ chat: sg, from: alice, text: "reply", replyTo: plain.id });
      expect((inbox.last().replyTo as Api.MessageReplyHeader).quote).toBeFalsy();
    });
  }

  it("refuses a quote that is not in the replied-to message, or a quote without a reply", async () => {
    const { emu, persona, alice } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const original = await emu.post({ chat: sg, from: alice, text: "hello there" });
    await expect(
      emu.post({ chat: sg, from: alice, text: "x", replyTo: original.id, quote: "goodbye" }),
    ).rejects.toThrow(/not in the replied-to message/);
    await expect(emu.post({ chat: sg, from: alice, text: "x", quote: "hello" })).rejects.toThrow(
      /not in the replied-to message/,
    );
  });
});
