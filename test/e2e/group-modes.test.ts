/**
 * Group modes on the emulator (real GramJS), with the real @google/genai SDK against the Gemini
 * fake and a fake clock: strict by default, smart (prefilter + addressing call), talkative
 * (interjections, capped per hour), and the owner's per-chat `/mode`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ordinaryChatter } from "../../bench/chatter";
import { NEW_LABEL } from "../../src/inbound/addressing-call";
import { MAX_BURST } from "../../src/inbound/addressing-implicit";
import { CHATTER_COOLDOWN_MS } from "../../src/inbound/addressing-prefilter";
import type { EmuUser } from "../../emulator";
import { lastUserText, requestPurpose, type FakeReply, type GenerateBody } from "../support/gemini-fake";
import { Harness, TEST_PERSONA } from "../support/harness";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const LITE = "gemini-2.5-flash-lite";

/** The ids of the NEW messages an addressing request asks about (their envelope headers). */
const judgedIds = (body: GenerateBody): number[] =>
  [...(lastUserText(body).split(NEW_LABEL)[1] ?? "").matchAll(/^⟦#(\d+) /gmu)].map((m) => Number(m[1]));

/** The addressing verdict the fake gives: addressed when a NEW message carries the marker "(for-persona)". */
function verdict(body: GenerateBody, extra: Record<string, unknown> = {}): FakeReply {
  const fresh = lastUserText(body).split(NEW_LABEL)[1] ?? "";
  const hit = fresh.split("\n").find((l) => l.includes("(for-persona)"));
  const id = hit ? Number(/^⟦#(\d+)/.exec(hit)?.[1]) : undefined;
  return {
    json: {
      reason: hit ? "continues the talk with Mira" : "talk between others",
      addressed: hit !== undefined,
      confidence: hit ? 0.9 : 0.1,
      ...(id !== undefined ? { message_id: id } : {}),
      wanna_interject: false,
      interject: 0,
      is_lightweight: false,
      ...extra,
    },
  };
}

/** Plans answer with one message naming what they answer. */
function answerEverything(): void {
  h.gemini.respondWith((body, _i, model) => {
    if (model === LITE) return verdict(body);
    return { json: { tasks: [{ kind: "send", text: "sure thing" }] } };
  });
}

const addressingCalls = () => h.gemini.requests.filter((r) => requestPurpose(r.body) === "address");
const planCalls = () => h.gemini.requests.filter((r) => requestPurpose(r.body) === "plan");

describe("smart mode", () => {
  it("over 100 group messages: the prefilter's skips and the addressing calls are counted, implicit addressing is answered, chatter between others is not", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\nsmart\n` });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    h.emu.chats.addMember(h.group, dave);
    const users: Record<string, EmuUser> = { alice: h.alice, bob: h.bob, carol: h.carol, dave };
    answerEverything();

    const script = ordinaryChatter({ personaName: "Mira" });
    const ids: number[] = [];
    for (const line of script) {
      await h.pass(line.gapMs);
      const posted = await h.emu.post({
        chat: h.group,
        from: users[line.from]!,
        text: line.text,
        ...(line.replyTo !== undefined ? { replyTo: ids[line.replyTo]! } : {}),
      });
      ids.push(posted.id);
    }
    await h.pass(60_000);

    const count = (k: string) => script.filter((l) => l.kind === k).length;
    const stats = h.runtime.addressing.stats;
    // Every message that did not name Mira was considered; the prefilter decided most of them alone.
    expect(stats.considered).toBe(100 - count("explicit"));
    expect(stats.skipped).toMatchObject({
      reply: count("reply"),
      command: count("command"),
      "other-mention": count("mention-other"),
      sibling: 0,
      "no-text": 0,
    });
    expect(stats.skipped["not-near"]).toBeGreaterThan(20);
    // Every candidate was judged in exactly one addressing request; no skipped message reached one.
    const judged = addressingCalls().flatMap((r) => judgedIds(r.body));
    expect(new Set(judged).size).toBe(judged.length);
    expect(judged).toHaveLength(stats.candidates);
    const neverJudged = new Set(
      script.flatMap((l, i) =>
        ["reply", "command", "mention-other", "explicit"].includes(l.kind) ? [ids[i]!] : [],
      ),
    );
    expect(judged.filter((id) => neverJudged.has(id))).toEqual([]);
    // One call per burst, counted, billed under its purpose, on the cheap model.
    expect(stats.calls).toBe(addressingCalls().length);
    expect(stats.calls).toBeGreaterThan(0);
    expect(stats.calls).toBeLessThanOrEqual(20);
    expect(stats.calls).toBeLessThanOrEqual(stats.candidates);
    expect(h.runtime.usage.today(h.clock.now()).byPurpose).toMatchObject({
      address: stats.calls,
      plan: planCalls().length,
    });
    expect(addressingCalls().every((r) => r.model === LITE)).toBe(true);
    expect(addressingCalls()[0]!.body.generationConfig).toMatchObject({
      thinkingConfig: { thinkingBudget: 0 },
    });

    // Answered: the explicit questions and every follow-up meant for Mira; nothing else.
    const followUps = script
      .map((l, i) => (l.kind === "follow-up" ? ids[i]! : undefined))
      .filter((x): x is number => x !== undefined);
    expect(stats.answered).toBe(followUps.length);
    expect(planCalls()).toHaveLength(count("explicit") + followUps.length);
    for (const r of planCalls())
      expect(lastUserText(r.body)).toMatch(/Mira, what do you think|\(for-persona\)/);
    expect(h.sent(h.group)).toHaveLength(count("explicit") + followUps.length);
  });

  it("a message the addressing call rejects never cancels or replans the answer being made", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\nsmart\n` });
    const long = "Sure, here is a rather long answer that takes a while to type out properly.";
    h.gemini.respondWith((body, _i, model) =>
      model === LITE ? verdict(body) : { json: { tasks: [{ kind: "send", text: long }] } },
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, can you help me?" });
    await h.pass(5_000); // planned after the quiet window; typing (≈ 8 s at 10 chars/s) is under way
    expect(planCalls()).toHaveLength(1);
    expect(h.sent(h.group)).toEqual([]);
    await h.emu.post({ chat: h.group, from: h.bob, text: "does anyone know when the release is?" });
    await h.pass(4_000);
    expect(addressingCalls()).toHaveLength(1); // asked, and rejected, while the answer is being typed
    await h.pass(30_000);
    expect(planCalls()).toHaveLength(1);
    expect(h.sent(h.group).map((m) => m.text)).toEqual([long]);
    const cancelled = h.db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'cancelled'").get() as {
      n: number;
    };
    expect(cancelled.n).toBe(0);
  });
});

describe("talkative mode", () => {
  it("joins in by itself — a reaction when lightweight, else a message — at most N times per hour per chat", async () => {
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n# Interjections Per Hour\n2\n`,
    });
    let n = 0;
    h.gemini.respondWith((body, _i, model) => {
      if (model !== LITE) return { json: { tasks: [{ kind: "send", text: "count me in!" }] } };
      n++;
      return verdict(body, { wanna_interject: true, interject: 0.9, is_lightweight: n === 1, emoji: "🔥" });
    });
    const questions = [
      "anyone up for lunch today?",
      "is the wifi down for everyone?",
      "what are you all doing this weekend?",
      "who has the keys to the storage room?",
    ];
    const posted: number[] = [];
    for (const q of questions) {
      posted.push((await h.emu.post({ chat: h.group, from: h.alice, text: q })).id);
      await h.pass(5 * 60_000);
    }
    // Four calls, two interjections (a 🔥 reaction, then one message); the cap held the rest.
    expect(addressingCalls()).toHaveLength(4);
    expect(h.emu.chats.reactions(h.group, posted[0]!).map((r) => r.emoji)).toEqual(["🔥"]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["count me in!"]);
    expect(h.runtime.addressing.stats).toMatchObject({ reacted: 1, interjected: 1 });

    // An hour after the first interjection the cap has room again.
    await h.pass(45 * 60_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "does anyone know when the release is?" });
    await h.pass(60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["count me in!", "count me in!"]);
  });
});

describe("talkative mode: chatter", () => {
  it("joins in on plain chatter — no question, nobody near the persona — and a quick second message joins the same call", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n` });
    h.gemini.respondWith((body, _i, model) =>
      model === LITE
        ? verdict(body, { wanna_interject: true, interject: 0.9 })
        : { json: { tasks: [{ kind: "send", text: "loved the sandworms" }] } },
    );
    const dune = await h.emu.post({ chat: h.group, from: h.alice, text: "just finished Dune, what a book" });
    await h.pass(1_000);
    const same = await h.emu.post({ chat: h.group, from: h.bob, text: "the ending though" });
    await h.pass(60_000);
    expect(addressingCalls()).toHaveLength(1);
    expect(judgedIds(addressingCalls()[0]!.body)).toEqual([dune.id, same.id]);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["loved the sandworms"]);
    expect(h.runtime.addressing.stats).toMatchObject({ candidates: 2, calls: 1, interjected: 1 });
  });

  it("a flood of chatter fills one burst of at most 10 messages; the rest waits for the cooldown", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n` });
    answerEverything();
    const ids: number[] = [];
    for (let i = 0; i < 15; i++) {
      ids.push(
        (await h.emu.post({ chat: h.group, from: i % 2 ? h.alice : h.bob, text: `flood ${i} of chatter` }))
          .id,
      );
      await h.pass(500);
    }
    await h.pass(60_000);
    expect(addressingCalls()).toHaveLength(1);
    expect(judgedIds(addressingCalls()[0]!.body)).toEqual(ids.slice(0, MAX_BURST));
    expect(h.runtime.addressing.stats).toMatchObject({ candidates: MAX_BURST, calls: 1 });
    expect(h.runtime.addressing.stats.skipped.cooldown).toBe(15 - MAX_BURST);
  });

  it("100 chatter messages over 50 minutes cost one addressing call per chatter cooldown, not one per message", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\ntalkative\n` });
    answerEverything(); // never wants to join in
    const people = [h.alice, h.bob, h.carol];
    for (let i = 0; i < 100; i++) {
      await h.emu.post({ chat: h.group, from: people[i % 3]!, text: `chatter number ${i}, nothing much` });
      await h.pass(30_000);
    }
    // One call per cooldown (minutes 0, 10, 20, 30 and 40); each judges the one message that started it.
    const expected = Math.ceil((100 * 30_000) / CHATTER_COOLDOWN_MS);
    expect(expected).toBe(5);
    expect(addressingCalls()).toHaveLength(expected);
    expect(addressingCalls().map((r) => judgedIds(r.body).length)).toEqual(Array(expected).fill(1));
    expect(h.runtime.addressing.stats).toMatchObject({
      considered: 100,
      candidates: expected,
      calls: expected,
    });
    expect(h.runtime.addressing.stats.skipped).toMatchObject({ cooldown: 100 - expected, "not-near": 0 });
    expect(h.sent(h.group)).toEqual([]);
  });
});

describe("/mode per chat", () => {
  it("`/mode smart` in one chat overrides the persona's strict there only", async () => {
    h = await Harness.start(); // the persona file says nothing: strict
    answerEverything();
    await h.emu.post({ chat: h.group, from: h.bob, text: "morning all" }); // the chat is known once it has a message
    await h.ownerSays("/mode smart Sandbox");
    await h.pass(5_000);
    expect(h.savedReplies().at(-1)).toMatch(/^Mode in Sandbox .* set to smart\.$/);

    for (const chat of [h.group, h.club]) {
      await h.emu.post({ chat, from: h.alice, text: "Mira, are you around?" });
      await h.pass(20_000);
      await h.emu.post({ chat, from: h.alice, text: "great, then tell me a joke (for-persona)" });
      await h.pass(20_000);
    }
    // Sandbox (smart): the follow-up got an addressing call and an answer. Club (strict): neither.
    expect(addressingCalls()).toHaveLength(1);
    expect(lastUserText(addressingCalls()[0]!.body)).toContain("tell me a joke");
    expect(h.sent(h.group)).toHaveLength(2);
    expect(h.sent(h.club)).toHaveLength(1);

    await h.ownerSays("/status");
    await h.pass(5_000);
    const status = h.savedReplies().at(-1)!;
    expect(status).toMatch(/^Group mode: as the persona file says by default; smart in Sandbox/m);
    expect(status).toMatch(/^LLM calls by purpose: .*address 1/m);
  });

  it("a waiting addressing decision survives a crash: the new process makes the call and answers", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Group Mode\nsmart\n` });
    answerEverything();
    await h.emu.post({ chat: h.group, from: h.alice, text: "Mira, are you around?" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "then tell me a joke (for-persona)" });
    await h.pass(500); // the address task is stored, its call not yet made (it gathers for 3 s)
    expect(addressingCalls()).toHaveLength(0);
    h.crash();
    h.boot();
    await h.pass(20_000);
    expect(addressingCalls()).toHaveLength(1);
    expect(h.sent(h.group)).toHaveLength(2);
  });
});
