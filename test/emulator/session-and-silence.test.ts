import { Api, errors } from "telegram";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { world } from "./harness";

describe("revokeSession", () => {
  it("fails every later request of that account with SESSION_REVOKED (401), and only that account's", async () => {
    const { emu, persona, alice, client } = world();
    const other = emu.addAccount({ firstName: "Other" });
    const otherClient = createEmulatedClient(emu, other);
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    expect((await client.sendMessage(dm.peerId, { message: "before" }))?.text).toBe("before");

    emu.faults.revokeSession(persona);

    for (let i = 0; i < 2; i++) {
      const e = await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(errors.RPCError);
      expect((e as errors.RPCError).errorMessage).toBe("SESSION_REVOKED");
      expect((e as errors.RPCError).code).toBe(401);
    }
    const send = await client.sendMessage(dm.peerId, { message: "after" }).catch((x: unknown) => x);
    expect((send as errors.RPCError).errorMessage).toBe("SESSION_REVOKED");
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi", "before"]);
    // Another account is not affected.
    await expect(otherClient.invoke(new Api.updates.GetState())).resolves.toBeInstanceOf(Api.updates.State);
  });

  it("answers AUTH_KEY_DUPLICATED with 406 and USER_DEACTIVATED_BAN with 401", async () => {
    const { emu, persona, client } = world();
    emu.faults.revokeSession(persona, "AUTH_KEY_DUPLICATED");
    const dup = (await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x)) as errors.RPCError;
    expect([dup.errorMessage, dup.code]).toEqual(["AUTH_KEY_DUPLICATED", 406]);
    emu.faults.revokeSession(persona, "USER_DEACTIVATED_BAN");
    const ban = (await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x)) as errors.RPCError;
    expect([ban.errorMessage, ban.code]).toEqual(["USER_DEACTIVATED_BAN", 401]);
  });

  it("answers an expired session and an invalid or temporary-only key in the 401 class, as Telegram does", async () => {
    const { emu, persona, client } = world();
    for (const name of ["SESSION_EXPIRED", "AUTH_KEY_INVALID", "AUTH_KEY_PERM_EMPTY"]) {
      emu.faults.revokeSession(persona, name);
      const e = (await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x)) as errors.RPCError;
      expect([e.errorMessage, e.code]).toEqual([name, 401]);
    }
  });
});

describe("revokeSession with a code", () => {
  it("answers a name Telegram may add later with the code given (an unnamed 401)", async () => {
    const { emu, persona, client } = world();
    emu.faults.revokeSession(persona, "SESSION_SOMETHING_NEW", { code: 401 });
    const e = (await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x)) as errors.RPCError;
    expect(e).toBeInstanceOf(errors.RPCError);
    expect([e.errorMessage, e.code]).toEqual(["SESSION_SOMETHING_NEW", 401]);
  });

  it("answers SESSION_PASSWORD_NEEDED in the 401 class, as Telegram lists it", async () => {
    const { emu, client } = world();
    emu.faults.failNext("updates.GetState", "SESSION_PASSWORD_NEEDED");
    const e = (await client.invoke(new Api.updates.GetState()).catch((x: unknown) => x)) as errors.RPCError;
    expect([e.errorMessage, e.code]).toEqual(["SESSION_PASSWORD_NEEDED", 401]);
    await expect(client.invoke(new Api.updates.GetState())).resolves.toBeInstanceOf(Api.updates.State);
  });
});

describe("silenced updates and a new connection", () => {
  it("a client that connects anew is pushed to again (what was missed stays missed)", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    emu.net.silenceUpdates(persona);
    await emu.post({ chat: dm, from: alice, text: "unheard" });
    await client.disconnect();
    expect(await client.connect()).toBe(true);
    await emu.post({ chat: dm, from: alice, text: "heard" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["heard"]);
  });
});
