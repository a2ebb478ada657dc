/**
 * The admission gate: nothing the persona does in a chat — the addressing call, a reaction, a
 * sticker, a read mark, typing, a plan — happens where the owner's switches or the caps say no.
 * Real GramJS on the emulator, the real Gemini SDK against the fake (crafted plans), a fake clock;
 * the assertions are on the requests Gemini got and on what the account did in the chat.
 */
import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import type { EmuChat } from "../../emulator";
import { lastUserText, requestPurpose, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const TALKATIVE = `${TEST_PERSONA}\n# Group Mode\ntalkative\n`;
const SMART = `${TEST_PERSONA}\n# Group Mode\nsmart\n`;

/** What the account can do in a chat, by the request that does it. */
const KINDS: Readonly<Record<string, string>> = {
  "messages.SetTyping": "typing",
  "messages.ReadHistory": "read",
  "channels.ReadHistory": "read",
  "messages.SendReaction": "reaction",
  "messages.SendMedia": "sticker",
  "messages.SendMessage": "send",
};

/** The chat a request acts in, as the emulator's peer id (`-100…`, `-…`, a user id). */
function peerOf(r: Api.AnyRequest): string | undefined {
  const p = (r as { peer?: unknown; channel?: unknown }).peer ?? (r as { channel?: unknown }).channel;
  if (p instanceof Api.InputPeerChannel || p instanceof Api.InputChannel)
    return `-100${p.channelId.toString()}`;
  if (p instanceof Api.InputPeerChat) return `-${p.chatId.toString()}`;
  if (p instanceof Api.InputPeerUser) return p.userId.toString();
  return undefined;
}

/** The kinds of action the account took in `chat` since request number `from`. */
function actionsIn(chat: EmuChat, from = 0): string[] {
  return h.emu.traffic.requests
    .slice(from)
    .filter(
      (r) =>
        r.account.id === h.account.id && KINDS[r.method] !== undefined && peerOf(r.request) === chat.peerId,
    )
    .map((r) => KINDS[r.method]!);
}

/** The kinds of the tasks the admission gate refused in `chat`, as the task table records them. */
function refusedIn(chat: EmuChat): string[] {
  return h.db
    .prepare(
      "SELECT kind FROM tasks WHERE chat_id = ? AND status = 'cancelled' AND error LIKE 'not admitted%'",
    )
    .pluck()
    .all(chat.peerId) as string[];
}

/** The kinds of the tasks cancelled in `chat`, as the task table records them. */
function cancelledIn(chat: EmuChat): string[] {
  return h.db
    .prepare("SELECT kind FROM tasks WHERE chat_id = ? AND status = 'cancelled' ORDER BY id")
    .pluck()
    .all(chat.peerId) as string[];
}

/** The reactions the account sent in `chat` since request number `from`: on which message, which emoji. */
function reactionsIn(chat: EmuChat, from = 0): { msgId: number; emoji: string }[] {
  const out: { msgId: number; emoji: string }[] = [];
  for (const r of h.emu.traffic.requests.slice(from)) {
    const q = r.request;
    if (
      r.account.id !== h.account.id ||
      !(q instanceof Api.messages.SendReaction) ||
      peerOf(q) !== chat.peerId
    )
      continue;
    for (const x of q.reaction ?? [])
      out.push({ msgId: Number(q.msgId), emoji: x instanceof Api.ReactionEmoji ? x.emoticon : x.className });
  }
  return out;
}

const purposes = (from = 0) => h.gemini.requests.slice(from).map((r) => requestPurpose(r.body));

/** The newest message id the request shows (the addressed one, or the newest judged). */
const newestId = (body: GenerateBody) =>
  Math.max(...[...lastUserText(body).matchAll(/⟦#(\d+) /gu)].map((m) => Number(m[1])));

/**
 * Gemini as a persona that does everything it can: an addressing call wants to interject with a
 * 🔥 reaction; a plan marks read, reacts, sends a sticker and a message.
 */
function doEverything(body: GenerateBody): FakeReply {
  if (requestPurpose(body) === "address") {
    return {
      json: {
        reason: "fun",
        addressed: false,
        confidence: 0.1,
        message_id: newestId(body),
        wanna_interject: true,
        interject: 0.95,
        is_lightweight: true,
        emoji: "🔥",
      },
    };
  }
  const id = newestId(body);
  return plan(
    { kind: "react", emoji: "👍", message_id: id },
    { kind: "sticker", set: "MiraCats", emoji: "😺" },
    { kind: "send", text: "on it", reply_to: id },
  );
}

/** The harness, with the persona's sticker set on the emulated Telegram. */
async function start(persona: string): Promise<Harness> {
  const started = await Harness.start({ persona });
  started.emu.addStickerSet({ shortName: "MiraCats", title: "Cats", stickers: [{ emoji: "😺" }] });
  return started;
}

/** Chatter that talkative mode judges (→ an addressing call, → a 🔥 reaction) and a mention (→ a plan and its actions). */
async function provoke(): Promise<void> {
  await h.emu.post({ chat: h.group, from: h.alice, text: "just finished reading Dune, what a book" });
  await h.pass(20_000);
  await h.emu.post({ chat: h.group, from: h.carol, text: "@mira_ai what do you think?" });
  await h.pass(60_000);
}

describe("the admission gate", () => {
  it("without a switch, the persona does every kind of thing (the control for the cases below)", async () => {
    h = await start(TALKATIVE);
    h.gemini.respondWith(doEverything);
    await provoke();
    expect(purposes()).toEqual(["address", "plan"]);
    expect(new Set(actionsIn(h.group))).toEqual(new Set(["reaction", "typing", "read", "sticker", "send"]));
    // The addressing call's own reaction went out: 🔥 on alice's chatter, beside the plan's 👍 on carol's mention.
    const [chatter, mention] = h.emu.history(h.group).filter((m) => m.fromId !== h.account.id);
    expect(reactionsIn(h.group)).toEqual([
      { msgId: chatter!.id, emoji: "🔥" },
      { msgId: mention!.id, emoji: "👍" },
    ]);
  });

  // Each switch: how to turn it on, in a talkative Sandbox where everything above would happen.
  const switches: { name: string; persona?: string; on: () => Promise<void> }[] = [
    {
      name: "not in # Allowed Groups",
      persona: `${TALKATIVE}\n# Allowed Groups\n-4000001\n`,
      on: async () => {},
    },
    { name: "/pause (everywhere)", on: () => h.ownerSays("/pause").then(() => h.pass(2_000)) },
    {
      name: "/pause Sandbox",
      on: async () => {
        await h.emu.post({ chat: h.group, from: h.bob, text: "morning" }); // the chat is known by name
        await h.ownerSays("/pause Sandbox");
        await h.pass(2_000);
      },
    },
    {
      name: "takeover silence",
      on: () => h.ownerSays("I'll take it from here", h.group).then(() => h.pass(2_000)),
    },
    {
      name: "answers per hour",
      persona: `${TALKATIVE}\n# Answers Per Hour\n1\n`,
      on: async () => {
        await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai hi" }); // the hour's one answer
        h.gemini.script(plan({ kind: "send", text: "hi bob" }));
        await h.pass(30_000);
      },
    },
    {
      name: "daily token budget",
      persona: `${TALKATIVE}\n# Daily Token Budget\n1000\n`,
      on: async () => {
        await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" }); // spends the day's tokens elsewhere
        h.gemini.script({
          json: { tasks: [{ kind: "send", text: "hi bob" }] },
          usage: { promptTokenCount: 900, candidatesTokenCount: 150 },
        });
        await h.pass(30_000);
      },
    },
  ];

  describe.each(switches)("$name", (s) => {
    it("no addressing call, reaction, sticker, typing, read mark or plan in the chat", async () => {
      h = await start(s.persona ?? TALKATIVE);
      await s.on();
      const requests = h.gemini.requests.length;
      const actions = h.emu.traffic.requests.length;
      h.gemini.respondWith(doEverything);
      await provoke();
      expect(purposes(requests)).toEqual([]);
      expect(actionsIn(h.group, actions)).toEqual([]);
      // Stored all the same.
      expect(
        h.runtime.messages.recent(h.group.peerId, Number.MAX_SAFE_INTEGER, 5).map((m) => m.text),
      ).toContain("@mira_ai what do you think?");
    });
  });

  it("DM policy: a stranger's DM gets no plan, typing, read mark, reaction, sticker or message", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# DM Policy\ncontacts\n` });
    h.gemini.respondWith(doEverything);
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const dm = h.emu.dm(h.account, dave);
    await h.emu.post({ chat: dm, from: dave, text: "hey, quick question" });
    await h.pass(60_000);
    expect(purposes()).toEqual([]);
    expect(actionsIn(dm)).toEqual([]);
  });

  describe("a switch turned on while the persona is thinking", () => {
    // The plan (or the addressing verdict) comes back after the switch: what it asks for is
    // created after /pause dropped the chat's tasks, and the gate stops it before it starts.
    const flips: { name: string; on: () => Promise<unknown> }[] = [
      { name: "/pause (everywhere)", on: () => h.ownerSays("/pause") },
      { name: "/pause Sandbox", on: () => h.ownerSays("/pause Sandbox") },
      { name: "takeover silence", on: () => h.ownerSays("I'll take it from here", h.group) },
    ];
    /**
     * `text` from `who` in Sandbox makes one LLM call (of `purpose`); while it is in flight the
     * switch goes on; then its answer (doEverything's) comes back. Returns what the gate refused.
     */
    async function flipWhileThinking(
      who: "alice" | "carol",
      text: string,
      purpose: string,
      flip: () => Promise<unknown>,
    ): Promise<unknown[]> {
      h = await start(TALKATIVE);
      const gate = latch();
      h.gemini.respondWith((body) => ({ after: gate.promise, then: doEverything(body) }));
      await h.emu.post({ chat: h.group, from: h[who], text });
      const passing = h.pass(5_000); // the call is made after the 3 s quiet (or gathering) window
      await until(() => h.gemini.requests.length === 1);
      expect(purposes()).toEqual([purpose]);
      const actions = h.emu.traffic.requests.length;
      await flip();
      gate.release();
      await passing;
      await h.pass(60_000);
      expect(actionsIn(h.group, actions)).toEqual([]);
      return refusedIn(h.group);
    }

    it.each(flips)("$name: the plan in flight types, reads, reacts, sends nothing", async (f) => {
      // (Its read mark went out at 2 s, before the switch.) The plan's first task is refused; the
      // rest follow it and go with it.
      expect(await flipWhileThinking("carol", "@mira_ai what do you think?", "plan", f.on)).toEqual([
        "react",
      ]);
    });

    it.each(flips)("$name: the addressing verdict in flight reacts with nothing", async (f) => {
      expect(
        await flipWhileThinking("alice", "just finished reading Dune, what a book", "address", f.on),
      ).toEqual(["react"]);
      expect(reactionsIn(h.group)).toEqual([]);
    });
  });

  // A switch turned on while an addressing call waits for its burst to gather: the pending task
  // is dropped (and said so), no call is made, nothing is done in the chat.
  const drops: { name: string; on: () => Promise<unknown>; dropped: () => unknown }[] = [
    {
      name: "/pause Sandbox",
      on: () => h.ownerSays("/pause Sandbox"),
      dropped: () =>
        expect(h.savedReplies().at(-1)).toMatch(/^Paused in Sandbox .*1 pending task\(s\) dropped/),
    },
    {
      name: "/pause (everywhere)",
      on: () => h.ownerSays("/pause"),
      dropped: () =>
        expect(h.savedReplies().at(-1)).toMatch(/^Paused everywhere.*; 1 pending task\(s\) dropped/),
    },
    {
      name: "takeover silence",
      on: () => h.ownerSays("I'll take it from here", h.group),
      dropped: () => expect(cancelledIn(h.group)).toEqual(["address"]),
    },
  ];

  it.each(drops)("$name drops the chat's pending addressing call too: no call is made", async (d) => {
    h = await start(SMART);
    h.gemini.respondWith(doEverything);
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "does anyone know a good pizza place near the station?",
    });
    await h.pass(500); // the addressing call waits for the burst to gather (3 s)
    expect(h.runtime.scheduler.openTasks(h.group.peerId).map((t) => t.kind)).toEqual(["address"]);
    const actions = h.emu.traffic.requests.length;
    await d.on();
    await h.pass(30_000);
    d.dropped();
    expect(purposes()).toEqual([]);
    expect(h.runtime.scheduler.openTasks(h.group.peerId)).toEqual([]);
    expect(actionsIn(h.group, actions)).toEqual([]);
  });

  it("without a switch, the same pending addressing call is made and its answer sent (the control for the drops above)", async () => {
    h = await start(SMART);
    // Smart mode never interjects: the call judges the question addressed, and the plan answers it.
    h.gemini.respondWith((body) =>
      requestPurpose(body) === "address"
        ? {
            json: {
              reason: "a question to the room",
              addressed: true,
              confidence: 0.95,
              message_id: newestId(body),
              wanna_interject: false,
              interject: 0,
              is_lightweight: false,
            },
          }
        : plan({ kind: "send", text: "Luigi's, right by the station" }),
    );
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning" });
    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "does anyone know a good pizza place near the station?",
    });
    await h.pass(30_000);
    expect(purposes()).toEqual(["address", "plan"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["Luigi's, right by the station"]);
  });

  it("settings edited while tasks were pending: after a restart the chat outside # Allowed Groups gets none of them", async () => {
    h = await start(TALKATIVE);
    await h.emu.post({ chat: h.group, from: h.carol, text: "@mira_ai remind me in a minute" });
    const id = () => Math.max(...h.emu.history(h.group).map((m) => m.id));
    h.gemini.respondWith((body) =>
      plan(
        { kind: "wait", seconds: 60 },
        { kind: "react", emoji: "👍", message_id: newestId(body) },
        { kind: "sticker", set: "MiraCats", emoji: "😺" },
        { kind: "send", text: "a minute is up", reply_to: id() },
      ),
    );
    await h.pass(10_000);
    expect(h.runtime.scheduler.openTasks(h.group.peerId).map((t) => t.kind)).toContain("send");
    const actions = h.emu.traffic.requests.length;
    await h.restart({ persona: `${TALKATIVE}\n# Allowed Groups\n-4000001\n` });
    await h.pass(120_000);
    expect(actionsIn(h.group, actions)).toEqual([]);
    expect(h.runtime.scheduler.openTasks(h.group.peerId)).toEqual([]);
  });

  it("the budget spent by another chat's plan holds a plan that was admitted before", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Daily Token Budget\n1000\n` });
    h.gemini.respondWith(() => ({
      json: { tasks: [{ kind: "send", text: "hi" }] },
      usage: { promptTokenCount: 900, candidatesTokenCount: 150 },
    }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(1_000);
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, hi" }); // admitted: nothing is spent yet
    await h.pass(60_000);
    expect(purposes()).toEqual(["plan"]);
    expect(h.sent(h.group)).toHaveLength(1);
    expect(actionsIn(h.club).filter((k) => k !== "read")).toEqual([]);
  });
});
