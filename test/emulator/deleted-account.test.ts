/**
 * A user deletes their account (docs/telegram-facts.md): their User objects carry `deleted: true`
 * without names, and a send to them answers INPUT_USER_DEACTIVATED.
 */
import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

describe("a deleted account", () => {
  it("shows as deleted (no names) in the answers that carry it, and refuses sends with INPUT_USER_DEACTIVATED", async () => {
    const { emu, persona, alice, bob, client } = world({ strictTl: true });
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "hi there" });
    await client.getMe();
    const dm = emu.dm(persona, alice);
    await client.sendMessage(dm.peerId, { message: "hello" }); // still there
    emu.deleteAccount(alice);

    const dialogs = (await client.invoke(
      new Api.messages.GetDialogs({ offsetPeer: new Api.InputPeerEmpty(), limit: 10 }),
    )) as Api.messages.Dialogs;
    const shown = dialogs.users.find((u) => u.id.toString() === String(alice.id)) as Api.User;
    expect(shown).toBeInstanceOf(Api.User);
    expect(shown.deleted).toBe(true);
    expect(shown.firstName ?? undefined).toBeUndefined();
    await expect(client.sendMessage(dm.peerId, { message: "are you there?" })).rejects.toThrow(
      /INPUT_USER_DEACTIVATED/,
    );
    // Someone else's DM goes on.
    await emu.post({ chat: emu.dm(persona, bob), from: bob, text: "yo" });
    await expect(client.sendMessage(emu.dm(persona, bob).peerId, { message: "yo" })).resolves.toBeDefined();
  });
});
