import { Api, errors } from "telegram";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createEmulatedClient } from "../../emulator/index";
import { FakeSender } from "../../emulator/fake-sender";
import { world } from "./harness";

const settled = async (p: Promise<unknown>, ms: number): Promise<boolean> => {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((r) => setTimeout(r, ms));
  return done;
};

describe("fault injection and unimplemented methods", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("surfaces failNext FLOOD_WAIT_120 as errors.FloodWaitError with seconds 120", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.failNext("messages.SendMessage", "FLOOD_WAIT_120");

    const error = await client.sendMessage(dm.peerId, { message: "too fast" }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(errors.FloodWaitError);
    expect((error as errors.FloodWaitError).seconds).toBe(120);
    expect((error as errors.FloodWaitError).code).toBe(420);
    expect(emu.history(dm).map((m) => m.text)).toEqual(["hi"]);
    // Only the next one fails.
    expect((await client.sendMessage(dm.peerId, { message: "later" }))?.text).toBe("later");
  });

  it("lets GramJS sleep through a short flood wait when the threshold allows it", async () => {
    const { emu, persona, alice } = world();
    const client = createEmulatedClient(emu, persona, { floodSleepThreshold: 5 });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.failNext("messages.SetTyping", "FLOOD_WAIT_0");
    emu.traffic.clearRequests();

    await client.invoke(
      new Api.messages.SetTyping({ peer: dm.peerId, action: new Api.SendMessageTypingAction() }),
    );
    expect(emu.traffic.methods()).toEqual(["messages.SetTyping", "messages.SetTyping"]);
  });

  it("honours times, match and an explicit code", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.faults.failNext("messages.SendMessage", "CHAT_RESTRICTED", {
      times: 2,
      code: 403,
      match: (r) => r instanceof Api.messages.SendMessage && r.message.startsWith("bad"),
    });

    expect((await client.sendMessage(dm.peerId, { message: "good" }))?.text).toBe("good");
    for (let i = 0; i < 2; i++) {
      const e = await client.sendMessage(dm.peerId, { message: "bad" }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(errors.RPCError);
      expect((e as errors.RPCError).errorMessage).toBe("CHAT_RESTRICTED");
      expect((e as errors.RPCError).code).toBe(403);
    }
    expect((await client.sendMessage(dm.peerId, { message: "bad again" }))?.text).toBe("bad again");
  });

  it("delays a method's answers with setDelay, and 0 removes the delay", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    const typing = () =>
      client.invoke(
        new Api.messages.SetTyping({ peer: dm.peerId, action: new Api.SendMessageTypingAction() }),
      );
    emu.faults.setDelay("messages.SetTyping", 800);

    const started = performance.now();
    expect(await typing()).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(790);

    emu.faults.setDelay("messages.SetTyping", 0);
    const again = performance.now();
    await typing();
    expect(performance.now() - again).toBeLessThan(400); // far below the 800 ms delay, with room for a loaded machine
  });

  it("hangs before applying: never answered, nothing stored", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    emu.faults.hang("messages.SendMessage", { when: "before-apply" });

    const pending = client.sendMessage(sg.peerId, { message: "lost in transit" });
    expect(await settled(pending, 30)).toBe(false);
    expect(emu.history(sg).map((m) => m.text)).toEqual(["hi"]);
    expect(emu.traffic.methods()).toEqual(["messages.SendMessage"]);
  });

  it("hangs after applying: stored and broadcast, but the caller never hears back", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    emu.faults.hang("messages.SendMessage", { when: "after-apply" });
    const seen: string[] = [];
    emu.onMessage((m) => seen.push(m.text));

    const pending = client.sendMessage(sg.peerId, { message: "sent, then crashed" });
    expect(await settled(pending, 30)).toBe(false);
    expect(emu.history(sg).map((m) => m.text)).toEqual(["hi", "sent, then crashed"]);
    expect(seen).toEqual(["sent, then crashed"]);
  });

  it("rejects an unimplemented method loudly with EMULATOR_UNIMPLEMENTED naming it", async () => {
    const { emu, client } = world();
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true);

    const error = await client.invoke(new Api.messages.GetDialogFilters()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(errors.RPCError);
    expect((error as errors.RPCError).errorMessage).toBe("EMULATOR_UNIMPLEMENTED");
    expect((error as errors.RPCError).code).toBe(400);
    expect((error as Error).message).toContain("messages.GetDialogFilters");
    expect(stderr.mock.calls.map((c) => String(c[0])).join("")).toContain("messages.GetDialogFilters");
    expect(emu.traffic.methods()).toEqual(["messages.GetDialogFilters"]);
  });

  it("stops answering a detached client and delivers nothing to it; a new client takes over", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "before the crash" });
    emu.faults.setDelay("messages.SendMessage", 20);
    const inFlight = client.sendMessage(sg.peerId, { message: "in flight" });
    await new Promise((r) => setImmediate(r));

    emu.detach(client);
    expect(emu.isAttached(persona)).toBe(false);
    expect(await settled(inFlight, 50)).toBe(false);
    await emu.post({ chat: sg, from: alice, text: "while down" });
    expect(inbox.events.map((e) => e.message.text)).toEqual(["before the crash"]);
    expect(await settled(client.sendMessage(sg.peerId, { message: "zombie" }), 20)).toBe(false);
    expect(emu.history(sg).map((m) => m.text)).toEqual(["before the crash", "while down"]);

    emu.faults.setDelay("messages.SendMessage", 0);
    const restarted = createEmulatedClient(emu, persona);
    emu.primeEntityCache(persona);
    expect((await restarted.sendMessage(sg.peerId, { message: "back" }))?.id).toBe(4);
  });

  it("never answers synchronously", () => {
    const { emu, persona, alice, client } = world();
    const sender = (client as unknown as { _sender: FakeSender })._sender;
    expect(sender).toBeInstanceOf(FakeSender);
    emu.dm(persona, alice);
    let answered = false;
    sender.addStateToQueue({
      request: new Api.updates.GetState(),
      resolve: () => (answered = true),
      reject: () => (answered = true),
    });
    expect(answered).toBe(false);
  });
});
