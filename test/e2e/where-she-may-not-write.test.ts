import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** Requests that write something to a chat (what a muted member must not spend). */
const WRITES = ["messages.SendMessage", "messages.SendMedia", "messages.SetTyping"];
const writes = (h: Harness) => h.emu.traffic.methods(h.account).filter((m) => WRITES.includes(m));

/** The kinds the plan's answer schema offered, in the last planning request. */
function offeredKinds(h: Harness): string[] {
  const schema = h.gemini.requests.at(-1)!.body.generationConfig?.responseJsonSchema as {
    properties: { tasks: { items: { anyOf: { properties: { kind: { enum: string[] } } }[] } } };
  };
  return schema.properties.tasks.items.anyOf.map((v) => v.properties.kind.enum[0]!);
}

/** Points 3 and 4 of issue 38: the chat's rights and slow mode, read up front from its objects. */
describe("where she may not write", () => {
  it("muted in a supergroup (default_banned_rights: send_messages): a mention costs no plan and no write request; lifted, she answers again", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" }); // the chat as it was
    await h.emu.chats.restrict(h.group, { defaultBans: { sendMessages: true } }); // updateChannel
    h.emu.traffic.clearRequests();
    for (let i = 0; i < 3; i++) {
      await h.emu.post({ chat: h.group, from: h.alice, text: `@mira_ai are you there? ${i}` });
      await h.pass(30_000);
    }
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);
    expect(h.log.lines().some((l) => /may not write in this chat/.test(String(l.msg)))).toBe(true);

    await h.emu.chats.restrict(h.group, { defaultBans: null });
    h.gemini.script(plan({ kind: "send", text: "here now" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and now?" });
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["here now"]);
  });

  it("her own restriction with an until_date: not planned while it holds, answered once it lapsed by itself", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
    await h.emu.chats.restrict(h.group, {
      member: { user: h.account, bans: { sendMessages: true, until: h.clock.now() + 600_000 } },
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    await h.pass(600_000); // the restriction ends; Telegram says nothing
    h.gemini.script(plan({ kind: "send", text: "hi!" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello again" });
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi!"]);
  });

  it("a group that forbids stickers: the plan is offered no sticker kind", async () => {
    h = await Harness.start();
    h.emu.addStickerSet({ shortName: "MiraCats", title: "Cats", stickers: [{ emoji: "😺" }] });
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
    h.gemini.script(plan({ kind: "send", text: "a" }), plan({ kind: "send", text: "b" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one" });
    await h.pass(30_000);
    expect(offeredKinds(h)).toContain("sticker");
    expect(h.lastUserTurn()).toContain("send your stickers");
    await h.emu.chats.restrict(h.group, { defaultBans: { sendStickers: true } });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai two" });
    await h.pass(30_000);
    expect(offeredKinds(h)).not.toContain("sticker");
    expect(offeredKinds(h)).toContain("send");
    // What the request tells her she can do says so too (⟦abilities⟧).
    expect(h.lastUserTurn()).not.toContain("send your stickers");
  });

  it("a basic group whose default rights mute her (updateChatDefaultBannedRights): no plan, no request", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.club, from: h.bob, text: "morning" });
    await h.emu.chats.restrict(h.club, { defaultBans: { sendMessages: true } });
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);
  });
});

describe("a refusal teaches what the chat's objects did not say", () => {
  it("a basic group in short updates (no chat object says she is muted): after CHAT_WRITE_FORBIDDEN on a send, the next mentions there cost no plan and no request", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.club, from: h.bob, text: "morning" });
    h.emu.faults.failNext("messages.SendMessage", "CHAT_WRITE_FORBIDDEN", { code: 403 });
    h.gemini.respondWith(() => plan({ kind: "send", text: "sure" }));
    await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai one?" });
    await h.pass(30_000);
    const plans = h.gemini.requests.length;
    h.emu.traffic.clearRequests();
    for (let i = 0; i < 3; i++) {
      await h.emu.post({ chat: h.club, from: h.alice, text: `@mira_ai two? ${i}` });
      await h.pass(10 * 60_000);
    }
    expect(h.gemini.requests.length).toBe(plans);
    expect(writes(h)).toEqual([]);
  });
});

describe("removed from a basic group (chatForbidden)", () => {
  it("a mention that arrived just before she was removed is not planned, and costs no request", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.club, from: h.alice, text: "@mira_ai are you coming?" });
    await h.emu.chats.removeMember(h.club, h.account); // within the quiet window: chatForbidden
    h.emu.traffic.clearRequests();
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(writes(h)).toEqual([]);
  });
});

describe("slow mode known up front", () => {
  for (const seconds of [60, 3600]) {
    it(`a two-part answer in a ${seconds} s slow-mode supergroup goes as one message, at once, with no SLOWMODE_WAIT`, async () => {
      h = await Harness.start();
      await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
      await h.emu.chats.restrict(h.group, { slowmodeSec: seconds });
      h.gemini.script(plan({ kind: "send", text: "First part." }, { kind: "send", text: "Second part." }));
      await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me two things" });
      await h.pass(30_000);
      expect(h.sent(h.group).map((m) => m.text)).toEqual(["First part.\n\nSecond part."]);
      expect(h.emu.traffic.methods(h.account).filter((m) => m === "messages.SendMessage")).toHaveLength(1);
      expect(h.log.lines().some((l) => /SLOWMODE_WAIT/.test(JSON.stringify(l)))).toBe(false);
    });
  }
});

describe("spam-limited in every supergroup (USER_BANNED_IN_CHANNEL)", () => {
  it("like PEER_FLOOD: group writes pause after the first refusal (no plan, no request), one error line, the owner told once in Saved Messages; private chats go on; lifted, the next group message probes and she resumes", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
    h.emu.faults.banInGroups(h.account);
    h.gemini.respondWith(() => plan({ kind: "send", text: "sure" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one?" });
    await h.pass(30_000);
    const refusedAt = h.emu.traffic.requests.length;
    const plans = h.gemini.requests.length;
    for (let i = 0; i < 6; i++) {
      await h.emu.post({ chat: h.group, from: h.alice, text: `@mira_ai still there? ${i}` });
      await h.pass(5 * 60_000);
    }
    const after = h.emu.traffic.requests.slice(refusedAt).map((r) => r.method);
    expect(after.filter((m) => WRITES.includes(m))).toEqual([]); // (the owner's note went with the refusal)
    expect(h.gemini.requests.length).toBe(plans);
    const lines = h.log.lines().filter((l) => /USER_BANNED_IN_CHANNEL/.test(String(l.msg)));
    expect(lines.filter((l) => (l.level as number) >= 40)).toHaveLength(1);
    expect(h.savedReplies().filter((t) => t.includes("USER_BANNED_IN_CHANNEL"))).toHaveLength(1);

    await h.emu.post({ chat: dm, from: h.carol, text: "hey you" });
    await h.pass(30_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["sure"]);

    h.emu.faults.banInGroups(h.account, false);
    await h.pass(3 * 3600_000); // the pause's end: the next group message plans and probes
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai and now?" });
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["sure"]);
  });
});
