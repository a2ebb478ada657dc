/**
 * A member who leaves or is removed, as Telegram shows it to the accounts that stay: a basic
 * group and a supergroup post messageActionChatDeleteUser (from the member when it left, from an
 * admin when it was removed), pushed to a real GramJS client; a big supergroup may post none
 * (`silent`); channels.getParticipant answers USER_NOT_PARTICIPANT for a non-member.
 */
import { Api, errors } from "telegram";
import { describe, expect, it } from "vitest";
import { rawOf, world } from "./harness";

const serviceMessages = (updates: Api.TypeUpdate[]) =>
  updates.flatMap((u) =>
    (u instanceof Api.UpdateNewMessage || u instanceof Api.UpdateNewChannelMessage) &&
    u.message instanceof Api.MessageService
      ? [u.message]
      : [],
  );

describe("a member leaves or is removed", () => {
  it("basic group and supergroup: messageActionChatDeleteUser is pushed, from the member who left or the admin who removed", async () => {
    const { emu, persona, alice, bob, client } = world();
    const group = emu.createGroup({ title: "Club", members: [persona, alice, bob] });
    const sg = emu.createSupergroup({ title: "Sandbox", members: [persona, alice, bob] });
    const seen = rawOf(client);
    await client.getMe();
    await emu.chats.removeMember(group, bob);
    await emu.chats.removeMember(sg, alice, { how: "left" });
    const [inGroup, inSg] = serviceMessages(seen);
    expect(inGroup!.action).toBeInstanceOf(Api.MessageActionChatDeleteUser);
    expect(Number((inGroup!.action as Api.MessageActionChatDeleteUser).userId)).toBe(bob.id);
    expect(inGroup!.peerId).toBeInstanceOf(Api.PeerChat);
    expect(Number((inSg!.action as Api.MessageActionChatDeleteUser).userId)).toBe(alice.id);
    expect(Number((inSg!.fromId as Api.PeerUser).userId)).toBe(alice.id);
    expect(inSg!.peerId).toBeInstanceOf(Api.PeerChannel);
    expect(emu.chats.members(group).map((u) => u.id)).not.toContain(bob.id);
  });

  it("silent: no service message; channels.getParticipant says USER_NOT_PARTICIPANT for the one who went, the member for one who stayed", async () => {
    const { emu, persona, alice, bob, client } = world();
    const sg = emu.createSupergroup({ title: "Big", members: [persona, alice, bob] });
    const seen = rawOf(client);
    await client.getMe();
    await emu.chats.removeMember(sg, bob, { silent: true });
    expect(serviceMessages(seen)).toEqual([]);
    const channel = new Api.InputChannel({
      channelId: BigInt(sg.id) as never,
      accessHash: BigInt(sg.accessHash) as never,
    });
    const peer = (u: typeof bob) =>
      new Api.InputPeerUser({ userId: BigInt(u.id) as never, accessHash: BigInt(u.accessHash) as never });
    const stayed = await client.invoke(
      new Api.channels.GetParticipant({ channel, participant: peer(alice) }),
    );
    expect(Number((stayed.participant as Api.ChannelParticipant).userId)).toBe(alice.id);
    const gone = await client
      .invoke(new Api.channels.GetParticipant({ channel, participant: peer(bob) }))
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(errors.RPCError);
    expect((gone as errors.RPCError).errorMessage).toBe("USER_NOT_PARTICIPANT");
    expect((gone as errors.RPCError).code).toBe(400);
  });
});

describe("a big group", () => {
  it("of 50 members or more posts no service message when a person leaves, one when a bot is removed", async () => {
    const { emu, persona, client } = world();
    const people = Array.from({ length: 49 }, (_, k) => emu.addUser({ firstName: `P${k}` }));
    const bot = emu.addUser({ firstName: "Helper", bot: true });
    const big = emu.createSupergroup({ title: "Big", members: [persona, ...people, bot] });
    const seen = rawOf(client);
    await client.getMe();
    await emu.chats.removeMember(big, people[0]!, { how: "left" });
    expect(serviceMessages(seen)).toEqual([]);
    await emu.chats.removeMember(big, bot);
    expect(serviceMessages(seen)).toHaveLength(1);
  });
});
