import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { world } from "./harness";

describe("online status (account.updateStatus)", () => {
  it("records what the account says, shows others online until it expires (5 min) or offline since then", async () => {
    let now = Date.UTC(2026, 10, 22, 12, 0, 0);
    const { emu, persona, client } = world({ now: () => now });
    const friend = emu.addAccount({ firstName: "Friend", username: "friend" });
    emu.addContact(friend, persona);
    const friendClient = createEmulatedClient(emu, friend);
    const pushed: Api.UpdateUserStatus[] = [];
    friendClient.addEventHandler((u: Api.TypeUpdate) => {
      if (u instanceof Api.UpdateUserStatus) pushed.push(u);
    });
    expect(emu.presence.of(persona)).toEqual({ state: "recently" });

    expect(await client.invoke(new Api.account.UpdateStatus({ offline: false }))).toBe(true);
    await emu.idle();
    expect(emu.presence.of(persona)).toEqual({ state: "online", expires: now + 300_000 });
    // Another account sees it in the user objects it gets, and (a contact) is pushed the change.
    const [seen] = (await friendClient.invoke(
      new Api.users.GetUsers({
        id: [new Api.InputUser({ userId: persona.id as never, accessHash: persona.accessHash as never })],
      }),
    )) as Api.User[];
    expect(seen!.status).toBeInstanceOf(Api.UserStatusOnline);
    expect((seen!.status as Api.UserStatusOnline).expires).toBe(Math.floor((now + 300_000) / 1000));
    expect(pushed.map((u) => u.status.className)).toEqual(["UserStatusOnline"]);

    // Not renewed: after five minutes the server lets it lapse; "last seen" is then.
    now += 301_000;
    expect(emu.presence.of(persona)).toEqual({ state: "offline", wasOnline: now - 1_000 });

    await client.invoke(new Api.account.UpdateStatus({ offline: false }));
    now += 10_000;
    await client.invoke(new Api.account.UpdateStatus({ offline: true }));
    await emu.idle();
    expect(emu.presence.of(persona)).toEqual({ state: "offline", wasOnline: now });
    expect(pushed.map((u) => u.status.className)).toEqual([
      "UserStatusOnline",
      "UserStatusOnline",
      "UserStatusOffline",
    ]);
    expect(emu.presence.log(persona).map((s) => s.offline)).toEqual([false, false, true]);
    // A user who never said anything shows "last seen recently", as before.
    expect(emu.presence.of(friend)).toEqual({ state: "recently" });
  });
});
