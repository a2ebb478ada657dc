import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

/** The account's requests as "method@ms since t0" (reply fetches excluded). */
function timeline(h: Harness, t0: number): string[] {
  return h.emu.traffic.requests
    .filter((r) => r.account.id === h.account.id)
    .map((r) => {
      let name = r.method;
      if (r.request instanceof Api.messages.SetTyping)
        name += `(${r.request.action.className.replace(/^SendMessage|Action$/g, "")})`;
      return `${name}@${r.at - t0}`;
    });
}

describe("executing a plan like a person", () => {
  it("reads, types for start delay + length/speed, sends, waits, reacts, picks a sticker, sends — in order", async () => {
    h = await Harness.start();
    h.emu.addStickerSet({
      shortName: "MiraCats",
      title: "Cats",
      stickers: [{ emoji: "😺" }, { emoji: "😿" }],
    });
    const t0 = h.clock.now();
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi!" });
    h.gemini.script(
      plan(
        { kind: "send", text: "hello" },
        { kind: "wait", seconds: 3 },
        { kind: "react", emoji: "❤", message_id: ask.id },
        { kind: "sticker", set: "MiraCats", emoji: "😺" },
        { kind: "send", text: "bye" },
      ),
    );
    await h.pass(20_000);
    // Persona: start delay 1 s, 10 chars/s, read delay 2 s, quiet window 3 s (the default): planned
    // at 3 s (the fake Gemini answers at once). "hello" → 1.5 s of typing, "bye" → 1.3 s.
    expect(timeline(h, t0)).toEqual([
      "account.UpdateStatus@2000", // online as it first looks (life/presence.ts); offline 60 s after its last act
      "channels.ReadHistory@2000",
      "channels.GetFullChannel@3000", // planning: what the chat allows to react with (once per chat)
      "messages.SetTyping(Typing)@3000",
      "messages.SendMessage@4500",
      "messages.SendReaction@7500",
      "messages.SetTyping(ChooseSticker)@7500",
      "messages.GetStickerSet@9500",
      "messages.SendMedia@9500",
      "messages.SetTyping(Typing)@9500",
      "messages.SendMessage@10800",
    ]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello", "", "bye"]);
  });

  it("a FLOOD_WAIT on account.updateStatus holds the online status for the seconds asked; the answers still go", async () => {
    h = await Harness.start();
    h.emu.faults.floodWait("account.UpdateStatus", 600);
    const statuses = () => h!.emu.traffic.requests.filter((r) => r.method === "account.UpdateStatus").length;
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi!" });
    h.gemini.script(plan({ kind: "send", text: "hello" }));
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai again?" });
    h.gemini.script(plan({ kind: "send", text: "yes" }));
    await h.pass(120_000); // its going idle (offline after 60 s) included
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hello", "yes"]);
    expect(statuses()).toBe(1); // the one that met the wait; nothing more during it
    await h.pass(600_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai still there?" });
    h.gemini.script(plan({ kind: "send", text: "sure" }));
    await h.pass(20_000);
    expect(statuses()).toBeGreaterThan(1); // after the wait, the status follows it again
  });

  it("refreshes typing every 5 s during a long typing spell", async () => {
    h = await Harness.start();
    const t0 = h.clock.now();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me more" });
    const text = "x".repeat(110); // 1 s + 110 / 10 = 12 s of typing
    h.gemini.script(plan({ kind: "send", text }));
    await h.pass(30_000);
    // Planned after the 3 s quiet window; typing from then on.
    expect(timeline(h, t0)).toEqual([
      "account.UpdateStatus@2000",
      "channels.ReadHistory@2000",
      "channels.GetFullChannel@3000",
      "messages.SetTyping(Typing)@3000",
      "messages.SetTyping(Typing)@8000",
      "messages.SetTyping(Typing)@13000",
      "messages.SendMessage@15000",
    ]);
  });

  it("cancels the rest of the plan and stops typing when a new message arrives mid-typing", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai tell me a long story" });
    h.gemini.script(plan({ kind: "send", text: "y".repeat(200) }, { kind: "send", text: "the end" }));
    await h.pass(4000); // read at 2 s, planned after the 3 s quiet window, typing since then
    expect(h.emu.traffic.methods(h.account)).toContain("messages.SetTyping");
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai actually never mind" });
    h.gemini.script(plan());
    await h.pass(60_000);

    const typing = h.emu.traffic.requests
      .filter((r) => r.request instanceof Api.messages.SetTyping)
      .map((r) => (r.request as Api.messages.SetTyping).action.className);
    expect(typing).toContain("SendMessageCancelAction");
    expect(h.sent(h.group)).toEqual([]);
    expect(h.gemini.requests).toHaveLength(2);
  });
});

describe("rate limits", () => {
  it("a 120 s flood wait on one chat's send does not delay another chat; the flooded send lands once after 120 s", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    const t0 = h.clock.now();
    h.emu.faults.failNext("messages.SendMessage", "FLOOD_WAIT_120", {
      match: (req) => req instanceof Api.messages.SendMessage && req.peer instanceof Api.InputPeerChannel,
    });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai ping" });
    await h.emu.post({ chat: dm, from: h.carol, text: "ping" });
    await h.pass(10_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["ok"]);
    expect(h.sent(h.group)).toEqual([]);
    // Another message in the DM while the group waits is answered at once too.
    await h.emu.post({ chat: dm, from: h.carol, text: "again" });
    await h.pass(10_000);
    expect(h.sent(dm)).toHaveLength(2);

    await h.pass(120_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["ok"]);
    const groupSends = h.emu.traffic.requests.filter(
      (r) =>
        r.request instanceof Api.messages.SendMessage &&
        (r.request as Api.messages.SendMessage).peer instanceof Api.InputPeerChannel,
    );
    expect(groupSends).toHaveLength(2);
    expect(groupSends[1]!.at - groupSends[0]!.at).toBeGreaterThanOrEqual(120_000);
    expect(groupSends[1]!.at - t0).toBeLessThan(130_000);
  });

  it("SLOWMODE_WAIT in one group does not slow another group", async () => {
    h = await Harness.start();
    const other = h.emu.createSupergroup({ title: "Other", members: [h.account, h.alice] });
    h.emu.faults.failNext("messages.SendMessage", "SLOWMODE_WAIT_30", {
      match: (req) =>
        req instanceof Api.messages.SendMessage &&
        String((req.peer as Api.InputPeerChannel).channelId) === String(h.group.id),
    });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.emu.post({ chat: other, from: h.alice, text: "@mira_ai hi" });
    await h.pass(10_000);
    expect(h.sent(other)).toHaveLength(1);
    expect(h.sent(h.group)).toHaveLength(0);
    await h.pass(30_000);
    expect(h.sent(h.group)).toHaveLength(1);
  });
});

describe("failures", () => {
  it("fails fast on a permanent error, with one error log and no retry", async () => {
    h = await Harness.start();
    h.emu.faults.failNext("messages.SendMessage", "CHAT_WRITE_FORBIDDEN", { code: 403 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi" }, { kind: "send", text: "second" }));
    await h.pass(120_000);
    expect(h.emu.traffic.methods(h.account).filter((m) => m === "messages.SendMessage")).toHaveLength(1);
    const errors = h.log.lines().filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(String(errors[0]!.err)).toContain("CHAT_WRITE_FORBIDDEN");
    expect(h.sent(h.group)).toEqual([]);
  });

  it("retries a transient error ~10 s apart, then gives up after the bound (10 attempts)", async () => {
    h = await Harness.start();
    h.emu.faults.failNext("messages.SendMessage", "INTERNAL_SERVER_ERROR", { code: 500, times: 50 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi" }));
    await h.pass(200_000);
    const sends = h.emu.traffic.requests.filter((r) => r.method === "messages.SendMessage");
    expect(sends).toHaveLength(10);
    expect(sends[1]!.at - sends[0]!.at).toBe(10_000);
    // Giving up is one error line for the operator (the retries before it are not errors).
    expect(h.log.lines().filter((l) => l.level === 50)).toHaveLength(1);
    expect(h.sent(h.group)).toEqual([]);
  });

  it("a send that gets no answer times out, is retried with the same random_id, and lands once", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.emu.faults.hang("messages.SendMessage", { when: "after-apply" }); // the server has it; the answer never comes
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi once" }));
    await h.pass(30_000);
    const sends = h.emu.traffic.requests.filter((r) => r.method === "messages.SendMessage");
    expect(sends).toHaveLength(2);
    expect(String((sends[1]!.request as Api.messages.SendMessage).randomId)).toBe(
      String((sends[0]!.request as Api.messages.SendMessage).randomId),
    );
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi once"]);
  });

  it("a transient error that clears is retried and the message is sent once", async () => {
    h = await Harness.start();
    h.emu.faults.failNext("messages.SendMessage", "INTERNAL_SERVER_ERROR", { code: 500, times: 2 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi" }));
    await h.pass(60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi"]);
  });
});

describe("invalid plans", () => {
  it("runs only the valid, independent part of a partly invalid plan, and keeps serving", async () => {
    h = await Harness.start();
    const cases: { tasks: unknown; want: string[] }[] = [
      { tasks: plan({ kind: "dance" }, { kind: "send", text: "valid part" }), want: ["valid part"] },
      {
        // A refused task (a bare name in about) never silences the rest of the plan.
        tasks: plan(
          { kind: "remember", content: "likes cake", about: "carol" },
          { kind: "send", text: "not silenced" },
        ),
        want: ["not silenced"],
      },
      // A send with a reply_to that is not in the chat is sent anyway (as a reply to the message it answers).
      {
        tasks: plan(
          { kind: "send", text: "bad reply", reply_to: 99_999 },
          { kind: "send", text: "after bad reply" },
        ),
        want: ["bad reply", "after bad reply"],
      },
    ];
    const asks: number[] = [];
    for (const c of cases) {
      asks.push((await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai go" })).id);
      h.gemini.script(c.tasks as never);
      await h.pass(30_000);
    }
    expect(h.sent(h.group).map((m) => m.text)).toEqual(cases.flatMap((c) => c.want));
    // The unknown reply_to became a reply to the message the plan answers.
    expect(h.sent(h.group).find((m) => m.text === "bad reply")?.replyTo).toBe(asks[2]);
  });

  it("retries a 100-task plan once, and splits an 8,000-character text into ordered messages", async () => {
    h = await Harness.start();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai write a lot" });
    // (Within a plan's 8,192 characters: test/e2e/bounded-plans.test.ts goes past them.)
    const long = Array.from({ length: 1000 }, (_, i) => `Sentence ${String(i).padStart(4, "0")}.`)
      .join(" ")
      .slice(0, 8_000);
    h.gemini.script(
      plan(...Array.from({ length: 100 }, () => ({ kind: "wait", seconds: 1 }))),
      plan({ kind: "send", text: long }),
    );
    await h.pass(120_000);
    expect(h.gemini.requests).toHaveLength(2);
    const texts = h.sent(h.group).map((m) => m.text);
    expect(texts.length).toBe(2);
    expect(texts.every((t) => t.length <= 4096)).toBe(true);
    expect(texts.join(" ")).toBe(long);
  });
});

describe("more of the vocabulary", () => {
  it("remembers at once, recalls in the next plan, and blocks in a DM", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "I'm vegetarian, by the way" });
    h.gemini.script(
      plan(
        { kind: "remember", content: "Carol is vegetarian" },
        { kind: "think", text: "noted" },
        { kind: "send", text: "noted!" },
      ),
    );
    await h.pass(20_000);
    expect(h.runtime.memories.list(dm.peerId).map((m) => m.content)).toEqual(["Carol is vegetarian"]);

    await h.emu.post({ chat: dm, from: h.carol, text: "you are annoying" });
    h.gemini.script(plan({ kind: "block" }));
    await h.pass(20_000);
    expect(JSON.stringify(h.gemini.requests[1]!.body.contents)).toContain("Carol is vegetarian");
    expect(h.emu.chats.isBlocked(h.account, h.carol)).toBe(true);
  });

  it("falls back to the emoji as text when the sticker set is missing, and resolves a set only once", async () => {
    h = await Harness.start();
    h.emu.addStickerSet({ shortName: "Cats", title: "Cats", stickers: [{ emoji: "😺" }] });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai stickers please" });
    h.gemini.script(
      plan(
        { kind: "sticker", set: "NoSuchSet", emoji: "🙂" },
        { kind: "sticker", set: "Cats", emoji: "😺" },
        { kind: "sticker", set: "Cats", emoji: "🐶" },
        { kind: "sticker", set: "Cats", emoji: "😺" },
      ),
    );
    await h.pass(30_000);
    const mine = h.emu.history(h.group).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => (m.media === "sticker" ? `sticker ${m.stickerEmoji}` : m.text))).toEqual([
      "🙂",
      "sticker 😺",
      "🐶",
      "sticker 😺",
    ]);
    expect(h.emu.traffic.methods(h.account).filter((m) => m === "messages.GetStickerSet")).toHaveLength(2);
  });

  it("fetches a sticker set again when its file references expired", async () => {
    h = await Harness.start();
    h.emu.addStickerSet({ shortName: "Cats", title: "Cats", stickers: [{ emoji: "😺" }] });
    h.emu.faults.failNext("messages.SendMedia", "FILE_REFERENCE_EXPIRED", { code: 400 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai cat please" });
    h.gemini.script(plan({ kind: "sticker", set: "Cats", emoji: "😺" }));
    await h.pass(30_000);
    expect(
      h.emu.traffic
        .methods(h.account)
        .filter((m) => m === "messages.GetStickerSet" || m === "messages.SendMedia"),
    ).toEqual([
      "messages.GetStickerSet",
      "messages.SendMedia",
      "messages.GetStickerSet",
      "messages.SendMedia",
    ]);
    expect(
      h.emu.history(h.group).filter((m) => m.fromId === h.account.id && m.media === "sticker"),
    ).toHaveLength(1);
  });

  it("reacts with Telegram's exact code points even when the model adds a variation selector", async () => {
    h = await Harness.start();
    const m = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai I passed my exam!" });
    h.gemini.script(plan({ kind: "react", emoji: "❤️", message_id: m.id }));
    await h.pass(20_000);
    expect(h.emu.chats.reactions(h.group, m.id)).toEqual([{ userId: String(h.account.id), emoji: "❤" }]);
  });

  it("answers inside the forum topic the question was asked in", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({ title: "Forum", members: [h.account, h.alice], forum: true });
    const topic = h.emu.createTopic(forum, "Travel");
    await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai best time to visit Porto?",
      topicId: topic,
    });
    h.gemini.script(plan({ kind: "send", text: "May or September." }));
    await h.pass(20_000);
    const mine = h.emu.history(forum).filter((m) => m.fromId === h.account.id);
    expect(mine.map((m) => [m.text, m.topicId])).toEqual([["May or September.", topic]]);
  });
});
