import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { inboxOf, world } from "./harness";

describe("Saved Messages and the owner's other devices", () => {
  it("delivers what the owner types in Saved Messages as out:true in the account's chat with itself", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const saved = emu.savedMessages(persona);

    const posted = await emu.post({ chat: saved, from: persona, text: "/status", deliverToSender: true });

    expect(everything.events).toHaveLength(1);
    const m = everything.last();
    expect(m.out).toBe(true);
    expect(m.peerId).toBeInstanceOf(Api.PeerUser);
    expect(m.chatId?.toString()).toBe(String(persona.id));
    expect(m.senderId?.toString()).toBe(String(persona.id));
    expect(m.text).toBe("/status");
    expect(m.id).toBe(posted.id);
    // Nobody else sees it, and it is the same chat whichever way it is named.
    expect(emu.savedMessages(persona)).toBe(saved);
    expect(emu.dm(persona, persona)).toBe(saved);
    expect(emu.chats.members(saved).map((u) => u.id)).toEqual([persona.id]);
    expect(emu.chats.peerIdFor(saved, alice)).toBe(String(persona.id));
  });

  it("stores the account's own sends to Saved Messages (InputPeerSelf) without echoing them back", async () => {
    const { emu, persona, client } = world();
    const everything = inboxOf(client, { all: true });
    const saved = emu.savedMessages(persona);
    await emu.post({ chat: saved, from: persona, text: "/help", deliverToSender: true });

    const res = await client.invoke(
      new Api.messages.SendMessage({
        peer: new Api.InputPeerSelf(),
        message: "Commands: …",
        randomId: returnBigInt("77"),
      }),
    );

    expect(res).toBeInstanceOf(Api.Updates);
    await emu.idle();
    expect(everything.events).toHaveLength(1); // only the owner's /help
    expect(emu.history(saved).map((x) => [x.fromId, x.text])).toEqual([
      [persona.id, "/help"],
      [persona.id, "Commands: …"],
    ]);
  });

  it("marks the users in the account's contact list with contact:true, and only for that account", async () => {
    const { emu, persona, alice, bob, inbox } = world();
    const other = emu.addAccount({ firstName: "Other" });
    const group = emu.createSupergroup({ title: "G", members: [persona, other, alice, bob] });
    const otherClient = createEmulatedClient(emu, other);
    const otherInbox = inboxOf(otherClient);
    emu.addContact(persona, alice);

    await emu.post({ chat: group, from: alice, text: "hi" });
    await emu.post({ chat: group, from: bob, text: "hey" });

    const senders = inbox.events.map((e) => e.message.sender as Api.User);
    expect(senders.map((u) => [u.firstName, Boolean(u.contact)])).toEqual([
      ["Alice", true],
      ["Bob", false],
    ]);
    expect(otherInbox.events.map((e) => Boolean((e.message.sender as Api.User).contact))).toEqual([
      false,
      false,
    ]);
  });
});

describe("redelivery of stored messages", () => {
  it("brings the account's own send back to its client as out:true, as catch-up would", async () => {
    const { emu, persona, alice, client } = world();
    const everything = inboxOf(client, { all: true });
    const group = emu.createSupergroup({ title: "G", members: [persona, alice] });
    await emu.post({ chat: group, from: alice, text: "hi" });
    const sent = await client.sendMessage(group.peerId, { message: "hello" });
    expect(everything.events).toHaveLength(1);

    await emu.redeliver(group, sent.id, persona);

    expect(everything.events).toHaveLength(2);
    expect(everything.last()).toMatchObject({ id: sent.id, out: true, message: "hello" });
    await expect(emu.redeliver(group, 99, persona)).rejects.toThrow(/no message 99/);
  });
});
