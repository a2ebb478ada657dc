import { Api } from "telegram";
import { StopPropagation } from "telegram/client/updates.js";
import { NewMessage, type NewMessageEvent } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { world } from "./harness";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("updates enter through GramJS's real _handleUpdate: handlers run concurrently", () => {
  it("interleaves the handlers of the updates in one envelope, and deliver() waits for all of them", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const log: string[] = [];
    client.addEventHandler(async (ev: NewMessageEvent) => {
      log.push(`start ${ev.message.text}`);
      await tick(ev.message.text === "first" ? 20 : 5);
      log.push(`end ${ev.message.text}`);
    }, new NewMessage({}));
    const [a] = emu.buildIncoming({ chat: sg, from: alice, text: "first" });
    const [b] = emu.buildIncoming({ chat: sg, from: alice, text: "second" });
    if (!a || !b) throw new Error("nothing prepared");
    const ua = a.updates as Api.Updates;
    const ub = b.updates as Api.Updates;
    const both = new Api.Updates({
      updates: [...ua.updates, ...ub.updates],
      users: ua.users,
      chats: ua.chats,
      date: ua.date,
      seq: 0,
    });

    await emu.deliver(persona, both);

    // Production GramJS does not await one update's handlers before the next update's.
    expect(log).toEqual(["start first", "start second", "end second", "end first"]);
  });

  it("lets two posts' handlers overlap, while each post() resolves after its own handlers", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const finished: string[] = [];
    client.addEventHandler(
      async (ev: NewMessageEvent) => {
        await tick(ev.message.text === "slow" ? 25 : 1);
        finished.push(ev.message.text);
      },
      new NewMessage({ incoming: true }),
    );

    const slow = emu.post({ chat: dm, from: alice, text: "slow" });
    await emu.post({ chat: dm, from: alice, text: "fast" });
    expect(finished).toEqual(["fast"]);
    await slow;
    expect(finished).toEqual(["fast", "slow"]);
  });

  it("settles post() when a handler throws (GramJS reports it to onError) or stops propagation", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const errors: unknown[] = [];
    client.onError = async (e) => {
      errors.push(e);
    };
    const ran: string[] = [];
    client.addEventHandler(async (ev: NewMessageEvent) => {
      ran.push("first");
      await tick(1);
      if (ev.message.text === "boom") throw new Error("handler failed");
      if (ev.message.text === "stop") throw new StopPropagation();
    }, new NewMessage({}));
    client.addEventHandler(() => {
      ran.push("second");
    }, new NewMessage({}));

    await emu.post({ chat: dm, from: alice, text: "boom" });
    await emu.post({ chat: dm, from: alice, text: "stop" });

    expect(ran).toEqual(["first", "second", "first"]);
    expect(errors.map((e) => (e as Error).message)).toEqual(["handler failed"]);
  });

  it("keeps tracking after removeEventHandler replaces GramJS's handler list", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    const gone = () => undefined;
    const builder = new NewMessage({});
    client.addEventHandler(gone, builder);
    client.removeEventHandler(gone, builder);
    let done = false;
    client.addEventHandler(async () => {
      await tick(10);
      done = true;
    }, new NewMessage({}));

    await emu.post({ chat: dm, from: alice, text: "x" });
    expect(done).toBe(true);
  });

  it("idle() waits for handlers of background deliveries and connection-state dispatches", async () => {
    const { emu, persona, alice, client } = world();
    const otto = emu.addAccount({ firstName: "Otto" });
    const ottoClient = createEmulatedClient(emu, otto);
    const group = emu.createGroup({ title: "G", members: [persona, otto, alice] });
    await emu.post({ chat: group, from: alice, text: "hi" });
    let ottoDone = false;
    ottoClient.addEventHandler(
      async () => {
        await tick(15);
        ottoDone = true;
      },
      new NewMessage({ incoming: true }),
    );

    await client.sendMessage(group.peerId, { message: "from the persona" });
    expect(ottoDone).toBe(false);
    await emu.idle();
    expect(ottoDone).toBe(true);
  });
});
