/**
 * What the persona sees when it answers, judged like a member of the chat: the room around every
 * answer in every group mode, conversations held in replies, reply threads and older replied-to
 * messages, no gap between summary and window, the addressed messages marked in place, local
 * time. Emulator + real GramJS + the real Gemini SDK against the loopback fake; assertions on the
 * request's content.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_INSTRUCTION } from "../../src/summary/summariser";
import {
  isPlanRequest,
  lastUserText,
  requestPurpose,
  type FakeReply,
  type GenerateBody,
} from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const NOTES = {
  goals_and_open_questions: [],
  decisions: ["meet on saturday"],
  facts: [],
  outcomes: [],
  pending_actions: [],
};
const isSummary = (body: GenerateBody) => body.systemInstruction?.parts?.[0]?.text === SUMMARY_INSTRUCTION;
const planBodies = () => h.gemini.requests.filter((r) => isPlanRequest(r.body)).map((r) => r.body);

/** Plans from `plans` (else silence); summaries get notes; addressing calls say "not addressed". */
function route(plans: FakeReply[] = [], summary: () => FakeReply = () => ({ json: NOTES })): void {
  h.gemini.respondWith((body) => {
    if (isSummary(body)) return summary();
    if (requestPurpose(body) === "address")
      return {
        json: {
          reason: "others",
          addressed: false,
          confidence: 0.1,
          wanna_interject: false,
          interject: 0,
          is_lightweight: false,
        },
      };
    return plans.shift() ?? plan();
  });
}

describe("the room, in every group mode", () => {
  for (const mode of ["strict", "smart", "talkative"] as const) {
    it(`${mode}: a question after five unthreaded messages carries all five; "hi all" then a mention carries "hi all"`, async () => {
      h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\n${mode}\n` });
      route();
      const talk = [
        [h.alice, "dinner on friday? thinking the thai place on 5th"],
        [h.bob, "friday works for me"],
        [h.carol, "same, 7pm?"],
        [h.alice, "7 is good, I'll book a table for four"],
        [h.bob, "great, see you all there"],
      ] as const;
      for (const [who, text] of talk) await h.emu.post({ chat: h.group, from: who, text });
      await h.emu.post({
        chat: h.group,
        from: h.alice,
        text: "Mira, would you come along? is 7 too early for you?",
      });
      await h.pass(20_000);
      expect(planBodies()).toHaveLength(1);
      expect(h.historyParts()).toEqual(talk.map(([, text]) => expect.stringContaining(text)));
      expect(h.nowParts()).toEqual([
        expect.stringContaining("would you come along? is 7 too early for you?"),
      ]);

      await h.emu.post({ chat: h.club, from: h.alice, text: "hi all" });
      await h.emu.post({ chat: h.club, from: h.bob, text: "Mira, you there?" });
      await h.pass(20_000);
      expect(h.historyParts()).toEqual([expect.stringMatching(/⟧ hi all$/)]);
    });
  }

  it("a conversation held in replies, then a question in the open chat: the request carries the whole conversation", async () => {
    h = await Harness.start();
    route();
    const lake = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "who drives to the lake on saturday?",
    });
    const car = await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "I can, my car fits four",
      replyTo: lake.id,
    });
    const nine = await h.emu.post({
      chat: h.group,
      from: h.carol,
      text: "pick me up at 9?",
      replyTo: car.id,
    });
    await h.emu.post({ chat: h.group, from: h.bob, text: "sure, 9 at yours", replyTo: nine.id });
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, are you coming too?" });
    await h.pass(20_000);
    const history = h.historyParts();
    expect(history).toEqual([
      expect.stringContaining("who drives to the lake on saturday?"),
      expect.stringContaining(`[↩ reply to #${lake.id} [Alice](tg:@alice)]\nI can, my car fits four`),
      expect.stringContaining(`[↩ reply to #${car.id} [Bob](tg:@bob)]\npick me up at 9?`),
      expect.stringContaining(`[↩ reply to #${nine.id} [Carol](tg:@carol)]\nsure, 9 at yours`),
    ]);
  });

  it("a reply to an older group message carries the messages before it and the room's flow after it", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n6\n` });
    route();
    await h.emu.post({ chat: h.group, from: h.alice, text: "what should we cook on sunday?" });
    await h.emu.post({ chat: h.group, from: h.bob, text: "something vegetarian" });
    const risotto = await h.emu.post({ chat: h.group, from: h.carol, text: "mushroom risotto!" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "yes, I'll get the rice" });
    for (let i = 1; i <= 20; i++)
      await h.emu.post({ chat: h.group, from: i % 2 ? h.bob : h.alice, text: `unrelated chatter ${i}` });
    await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@mira_ai do you know a good recipe?",
      replyTo: risotto.id,
    });
    await h.pass(20_000);
    const history = h.historyParts();
    expect(history.slice(0, 4)).toEqual([
      expect.stringContaining("what should we cook on sunday?"),
      expect.stringContaining("something vegetarian"),
      expect.stringContaining("mushroom risotto!"),
      expect.stringContaining("yes, I'll get the rice"),
    ]);
    expect(h.lastUserTurn().indexOf("⟦earlier⟧")).toBeLessThan(
      h.lastUserTurn().indexOf("what should we cook"),
    );
    // The room's part follows: 25 messages are more than the window reaches (twice 6), so the
    // room's summary was written first; the window shows the 6 newest, back to what it covers.
    expect(h.lastUserTurn()).toContain("[Summary of this conversation up to message #");
    expect(history.filter((p) => p.includes("unrelated chatter"))).toHaveLength(6 + 2); // 6 newest, and the two right after the rice
  });

  it("two reply threads interleaved, a question at the end of the first: its root and at least 10 of its messages come along, though the room's part holds only half", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# History Window\n8\n` });
    route();
    const rootA = await h.emu.post({ chat: h.group, from: h.alice, text: "A: which tent do we take?" });
    const rootB = await h.emu.post({ chat: h.group, from: h.bob, text: "B: who has the grill?" });
    let lastA = rootA.id;
    let lastB = rootB.id;
    for (let i = 1; i <= 16; i++) {
      lastA = (
        await h.emu.post({
          chat: h.group,
          from: i % 2 ? h.carol : h.alice,
          text: `A${i}: tent talk ${i}`,
          replyTo: lastA,
        })
      ).id;
      lastB = (
        await h.emu.post({
          chat: h.group,
          from: i % 2 ? h.alice : h.bob,
          text: `B${i}: grill talk ${i}`,
          replyTo: lastB,
        })
      ).id;
    }
    await h.emu.post({
      chat: h.group,
      from: h.carol,
      text: "@mira_ai what do you think, the big one?",
      replyTo: lastA,
    });
    await h.pass(20_000);
    const all = h.lastUserTurn();
    const ofA = h.historyParts().filter((p) => p.includes("tent talk") || p.includes("which tent"));
    expect(all).toContain("A: which tent do we take?");
    expect(ofA.length).toBeGreaterThanOrEqual(10);
    // The room's part (the newest 8, back to the room's summary, written first: 35 messages are
    // more than twice the window) holds only 4 of A.
    const room = all.slice(all.indexOf("⟦history⟧"));
    expect((room.match(/tent talk/g) ?? []).length).toBe(4);
    expect(all.indexOf("⟦earlier⟧")).toBeLessThan(all.indexOf("which tent"));
  });
});

/** The text of a request's turns, and the messages of `chat` up to its newest shown that are neither shown nor covered by the summary it carries. */
function gapIn(body: GenerateBody, chat: Parameters<Harness["emu"]["history"]>[0]) {
  const text = (body.contents ?? [])
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? "")
    .join("\n");
  const covered = Number(/\[Summary of this conversation up to message #(\d+)/.exec(text)?.[1] ?? 0);
  const shown = new Set([...text.matchAll(/⟦#(\d+) /g)].map((m) => Number(m[1])));
  const newest = Math.max(...shown);
  const missing = h.emu
    .history(chat)
    .map((m) => m.id)
    .filter((id) => id > covered && id <= newest && !shown.has(id));
  return { covered, shown, missing };
}

describe("no gap between summary and window", () => {
  it("a 50-exchange DM: every earlier message is in the window or in the summary the request carries, also while a summary is being written", async () => {
    h = await Harness.start();
    const dm = h.emu.dm(h.account, h.carol);
    let gate: ReturnType<typeof latch> | undefined;
    let summaries = 0;
    h.gemini.respondWith((body) => {
      if (isSummary(body)) {
        summaries++;
        // The second summary hangs for two exchanges.
        if (summaries === 2) {
          gate = latch();
          return { after: gate.promise, then: { json: NOTES } };
        }
        return { json: NOTES };
      }
      return plan({ kind: "send", text: `noted ${h.gemini.requests.length}` });
    });
    // A hanging summary must not hold fake time.
    h.clock.settle = () =>
      until(() =>
        h.runtime.scheduler.openTasks().every((t) => t.status !== "running" || t.kind === "summarize"),
      );
    let checked = 0;
    let whileWriting = 0;
    for (let n = 1; n <= 50; n++) {
      await h.emu.post({ chat: dm, from: h.carol, text: `message ${n} from carol` });
      await h.pass(20_000);
      const body = planBodies().at(-1)!;
      const text = (body.contents ?? [])
        .flatMap((c) => c.parts ?? [])
        .map((p) => p.text ?? "")
        .join("\n");
      const covered = Number(/\[Summary of this conversation up to message #(\d+)/.exec(text)?.[1] ?? 0);
      const shown = new Set([...text.matchAll(/⟦#(\d+) /g)].map((m) => Number(m[1])));
      const newest = Math.max(...shown);
      const missing = h.emu
        .history(dm)
        .map((m) => m.id)
        .filter((id) => id > covered && id <= newest && !shown.has(id));
      expect(missing, `exchange ${n}: summary up to #${covered}`).toEqual([]);
      checked++;
      if (gate) {
        whileWriting++;
        if (whileWriting === 2) {
          gate.release();
          gate = undefined;
          await until(() => h.runtime.scheduler.openTasks().every((t) => t.kind !== "summarize"));
        }
      }
    }
    expect(checked).toBe(50);
    expect(summaries).toBeGreaterThanOrEqual(3);
    expect(whileWriting).toBe(2);
  });

  it("a group: 40 messages nobody asked the persona about, then a mention — the summary is written first; also while a summary is being written, nothing falls between it and the window", async () => {
    h = await Harness.start({ media: { waitMs: 1500 } });
    let gate: ReturnType<typeof latch> | undefined;
    const summaryAt: number[] = [];
    h.gemini.respondWith((body, index) => {
      if (isSummary(body)) {
        summaryAt.push(index);
        if (gate) return { after: gate.promise, then: { json: NOTES } };
        return { json: NOTES };
      }
      return plan(); // silence: only the room's own messages in it
    });
    // A hanging summary must not hold fake time.
    h.clock.settle = () =>
      until(() =>
        h.runtime.scheduler.openTasks().every((t) => t.status !== "running" || t.kind === "summarize"),
      );
    const chatter = async (n: number, from: number) => {
      for (let i = from; i < from + n; i++)
        await h.emu.post({ chat: h.group, from: i % 2 ? h.bob : h.alice, text: `chatter ${i}` });
    };
    const ask = async (text: string) => {
      await h.emu.post({ chat: h.group, from: h.carol, text: `@mira_ai ${text}` });
      await h.pass(20_000);
      return gapIn(planBodies().at(-1)!, h.group);
    };

    // 40 messages while nobody asks: more than the window reaches (twice 16).
    await chatter(40, 1);
    const first = await ask("what did I miss?");
    expect(summaryAt).toHaveLength(1);
    expect(summaryAt[0]).toBeLessThan(h.lastPlanIndex()); // written before the plan was asked
    expect(first.covered).toBeGreaterThan(0);
    expect(first.missing).toEqual([]);

    // 20 more: the window reaches back to the summary (30 unsummarised), a new one is due and hangs.
    gate = latch();
    await chatter(20, 41);
    const second = await ask("and now?");
    expect(second.covered).toBe(first.covered);
    expect(second.missing).toEqual([]);
    await until(() => summaryAt.length === 2);
    // Asked while it is being written: the window still reaches back to the last summary.
    const third = await ask("still there?");
    expect(third.missing).toEqual([]);
    // Beyond the window's reach while it is still being written: planning waits (bounded), then
    // the window reaches back to the last summary.
    await chatter(8, 61);
    const fourth = await ask("anyone?");
    expect(summaryAt).toHaveLength(2);
    expect(fourth.covered).toBe(first.covered);
    expect(fourth.missing).toEqual([]);

    // Written at last: the next request carries it.
    gate.release();
    gate = undefined;
    await until(() => h.runtime.scheduler.openTasks().every((t) => t.kind !== "summarize"));
    const fifth = await ask("ok?");
    expect(fifth.covered).toBeGreaterThan(first.covered);
    expect(fifth.missing).toEqual([]);
  });
  it("a group whose summary model is down: a mention beyond the window's reach is planned at once, not after the summary's bounded wait, and the window reaches back over the whole room", async () => {
    h = await Harness.start();
    // The summary model answers 429 for ten minutes: its task is parked under the model's limit.
    const planAt: number[] = [];
    let summaryCalls = 0;
    h.gemini.respondWith((body) => {
      if (isSummary(body)) {
        summaryCalls++;
        return { status: 429, retryDelaySeconds: 600 };
      }
      if (isPlanRequest(body)) planAt.push(Date.now());
      return plan();
    });
    const chatter = async (n: number, from: number) => {
      for (let i = from; i < from + n; i++)
        await h.emu.post({ chat: h.group, from: i % 2 ? h.bob : h.alice, text: `chatter ${i}` });
    };
    const ask = async (text: string) => {
      const asked = Date.now();
      await h.emu.post({ chat: h.group, from: h.carol, text: `@mira_ai ${text}` });
      await h.pass(20_000);
      return { ms: planAt.at(-1)! - asked, ...gapIn(planBodies().at(-1)!, h.group) };
    };

    await chatter(40, 1);
    const first = await ask("what did I miss?");
    expect(summaryCalls).toBeGreaterThan(0); // asked first, and failed
    expect(first.covered).toBe(0);
    expect(first.missing).toEqual([]);
    const calls = summaryCalls;
    expect(h.runtime.scheduler.openTasks().filter((t) => t.kind === "summarize")).toHaveLength(1); // parked

    // The summary's task is open but waits out the model's limit: nothing to wait for.
    await chatter(8, 41);
    const second = await ask("anyone?");
    expect(second.ms).toBeLessThan(4000); // the summary's bounded wait is 8 s
    expect(summaryCalls).toBe(calls);
    expect(second.covered).toBe(0);
    expect(second.missing).toEqual([]);
    expect(second.shown.size).toBeGreaterThanOrEqual(48); // the whole room, no summary to lean on
  });
});

describe("a long reply thread", () => {
  it("keeps a summary of its own, carried when the question is asked inside it", async () => {
    h = await Harness.start();
    const threadNotes = { ...NOTES, decisions: ["the tent is the big one"] };
    h.gemini.respondWith((body) => {
      if (isSummary(body)) {
        const text = lastUserText(body);
        // The thread's summary reads only the thread; the room's has the chatter too.
        return { json: text.includes("chatter") ? NOTES : threadNotes };
      }
      return plan();
    });
    const root = await h.emu.post({ chat: h.group, from: h.alice, text: "which tent do we take?" });
    let last = root.id;
    for (let i = 1; i <= 40; i++) {
      last = (
        await h.emu.post({
          chat: h.group,
          from: i % 2 ? h.bob : h.alice,
          text: `tent talk ${i}`,
          replyTo: last,
        })
      ).id;
      await h.emu.post({ chat: h.group, from: h.carol, text: `chatter ${i}` });
    }
    const ask = async (text: string) => {
      last = (await h.emu.post({ chat: h.group, from: h.carol, text, replyTo: last })).id;
      await h.pass(20_000);
    };
    await ask("@mira_ai what do you think?");
    expect(h.lastUserTurn()).not.toContain("⟦thread summary⟧"); // not written yet: due after this plan
    await ask("@mira_ai and the poles?");
    const turn = h.lastUserTurn();
    expect(turn).toContain("⟦thread summary⟧");
    const section = turn.slice(turn.indexOf("⟦thread summary⟧"));
    expect(section).toMatch(/\[Summary of this conversation up to message #\d+/);
    expect(section).toContain("the tent is the big one");
    // The thread's root still comes along under ⟦earlier⟧, and the room's summary too.
    expect(turn).toContain("which tent do we take?");
    expect(turn).toContain("⟦summary⟧");
  });
});

describe("the addressed messages, marked in place", () => {
  it("three messages addressed together, two replying to the persona: message order kept, the three marked; in a busy group the answer replies to its target", async () => {
    h = await Harness.start();
    const plans: FakeReply[] = [
      plan({ kind: "send", text: "at 6" }),
      plan({ kind: "send", text: "by the fountain" }),
    ];
    route(plans);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai when is the meeting?" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and where?" });
    await h.pass(20_000);
    const [time, place] = h.sent(h.group);
    const thanks = await h.emu.post({ chat: h.group, from: h.alice, text: "thanks!", replyTo: time!.id });
    const ok = await h.emu.post({ chat: h.group, from: h.bob, text: "ok", replyTo: place!.id });
    const ask = await h.emu.post({ chat: h.group, from: h.carol, text: "@mira_ai can I bring my dog?" });
    await h.emu.post({ chat: h.group, from: h.bob, text: "lol carol" }); // someone else speaks after the question
    plans.push(plan({ kind: "send", text: "sure, bring him" }));
    await h.pass(20_000);

    const parts = h.lastUserTurn().split("\n⟦");
    const order = parts
      .map((p) => /^#(\d+) /.exec(p)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(h.nowParts()).toEqual([
      expect.stringContaining("thanks!"),
      expect.stringContaining("\nok"),
      expect.stringContaining("can I bring my dog?"),
    ]);
    expect(h.historyParts().at(-1)).toContain("lol carol"); // after the targets, where it was written
    const answer = h.sent(h.group).at(-1)!;
    expect(answer.text).toBe("sure, bring him");
    expect(answer.replyTo).toBe(ask.id);
    expect([thanks.id, ok.id]).not.toContain(answer.replyTo);
  });

  it("in a forum only the target's topic counts: a message in another topic does not make the answer a reply", async () => {
    h = await Harness.start();
    const forum = h.emu.createSupergroup({
      title: "Forum",
      members: [h.account, h.alice, h.bob],
      forum: true,
    });
    const travel = h.emu.createTopic(forum, "Travel");
    const food = h.emu.createTopic(forum, "Food");
    route([plan({ kind: "send", text: "May or September." }), plan({ kind: "send", text: "Flats." })]);
    const ask = await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai best time to visit Porto?",
      topicId: travel,
    });
    await h.emu.post({ chat: forum, from: h.bob, text: "anyone tried the bifana?", topicId: food });
    await h.pass(20_000);
    const first = h.sent(forum).find((m) => m.text === "May or September.")!;
    expect(first.replyTo).not.toBe(ask.id);

    // Someone else speaks in the same topic: then the answer replies to its target.
    const ask2 = await h.emu.post({
      chat: forum,
      from: h.alice,
      text: "@mira_ai hotels or flats?",
      topicId: travel,
    });
    await h.emu.post({ chat: forum, from: h.bob, text: "flats for sure", topicId: travel });
    await h.pass(20_000);
    expect(h.sent(forum).find((m) => m.text === "Flats.")!.replyTo).toBe(ask2.id);
  });

  it("in a quiet group the answer is not made a reply", async () => {
    h = await Harness.start();
    route([plan({ kind: "send", text: "hi alice" })]);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);
    expect(h.sent(h.group)).toEqual([{ id: expect.any(Number), text: "hi alice" }]);
  });
});

describe("local time", () => {
  it("# Time Zone: now with weekday and zone, history in local time, a marker after hours of silence", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Time Zone\nAmerica/New_York\n` });
    route();
    // The fake clock starts at Sunday 2026-11-22 12:00 UTC: 07:00 in New York.
    await h.emu.post({ chat: h.group, from: h.alice, text: "good morning everyone" });
    await h.pass(3 * 3600_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai lunch plans?" });
    await h.pass(20_000);
    const turn = h.lastUserTurn();
    expect(h.historyParts()).toEqual([
      expect.stringMatching(/^⟦#\d+ \[Alice\]\(tg:@alice\) · Sun 22 Nov 07:00⟧ good morning everyone$/),
    ]);
    expect(turn).toContain("⟦3 hours later⟧");
    expect(h.nowParts()).toEqual([expect.stringMatching(/· 10:00 · @mentions you⟧/)]);
    expect(turn).toMatch(/⟦now⟧ Sunday 2026-11-22 10:00 \(America\/New_York\)\./);
    expect(h.gemini.requests[h.lastPlanIndex()]!.body.systemInstruction?.parts?.[0]?.text).not.toMatch(
      /2026|America/,
    );
  });
});

describe("a stable prefix", () => {
  it("two plans in a row: the second repeats the first's beginning, its usage row records the cached tokens and the cost bills them at the cached rate", async () => {
    const price = { input: 1, output: 4, cached: 0.25 };
    // A persona of some length: Gemini caches a repeated beginning of 1,024 tokens or more only.
    const style = Array.from(
      { length: 60 },
      (_, i) => `Style note ${i + 1}: keep answers short and warm, and ask back when something is unclear.`,
    ).join("\n");
    h = await Harness.start({
      persona: TEST_PERSONA.replace(
        "You are Mira, a friendly member of this chat.",
        `You are Mira, a friendly member of this chat.\n${style}`,
      ),
      prices: { "gemini-2.5-flash": price },
    });
    const dm = h.emu.dm(h.account, h.carol);
    route([plan({ kind: "send", text: "hi Carol" }), plan({ kind: "send", text: "at 7" })]);
    await h.emu.post({ chat: dm, from: h.carol, text: "hi Mira" });
    await h.pass(20_000);
    await h.emu.post({ chat: dm, from: h.carol, text: "when is dinner?" });
    await h.pass(20_000);
    const rows = h.db
      .prepare(
        `SELECT prompt_tokens AS p, cached_tokens AS c, output_tokens AS o, thinking_tokens AS t, cost_usd AS cost
         FROM llm_usage WHERE purpose = 'plan' ORDER BY at, rowid`,
      )
      .all() as { p: number; c: number; o: number; t: number; cost: number }[];
    expect(rows).toHaveLength(2);
    expect(rows[0]!.c).toBe(0); // nothing to repeat yet
    const second = rows[1]!;
    expect(second.c).toBeGreaterThan(0);
    expect(second.c).toBeLessThanOrEqual(second.p);
    expect(second.cost).toBeCloseTo(
      ((second.p - second.c) * price.input + second.c * price.cached + (second.o + second.t) * price.output) /
        1e6,
      12,
    );
    // Billed at the full input rate it would cost more.
    expect(second.cost).toBeLessThan((second.p * price.input + (second.o + second.t) * price.output) / 1e6);
    expect(h.runtime.usage.today(h.clock.now()).cachedTokens).toBe(second.c);
  });
});

describe("who is there", () => {
  it("a group's header names the chat and its member count, the closing part the people in view; nothing is requested for it", async () => {
    h = await Harness.start();
    route();
    await h.emu.post({ chat: h.group, from: h.alice, text: "morning" });
    h.emu.traffic.clearRequests();
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai hey" });
    await h.pass(20_000);
    const turn = h.lastUserTurn();
    expect(turn.split("\n")[0]).toBe('⟦chat⟧ a group chat titled "Sandbox" · 4 members');
    expect(turn).toContain("People in view: [Bob](tg:@bob), [Alice](tg:@alice). New for you:");
    // The header asks Telegram nothing (the one full-chat read is the chat's allowed reactions, cached).
    expect(
      h.emu.traffic.methods(h.account).filter((m) => /GetParticipants|GetUsers|GetChats|GetChannels/.test(m)),
    ).toEqual([]);
  });
});
