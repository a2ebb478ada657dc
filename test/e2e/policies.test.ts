import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { parsePersona } from "../../src/config/persona";
import { GeminiClient } from "../../src/llm/gemini-client";
import { GeminiLlm } from "../../src/llm/llm";
import { GeminiPlanner } from "../../src/planning/planner";
import { AgentRuntime } from "../../src/runtime/agent-runtime";
import { FakeClock } from "../../src/base/clock";
import { createEmulatedClient } from "../../emulator";
import { captureEntities } from "../../src/telegram/entities";
import type { GenerateBody } from "../support/gemini-fake";
import { Harness, plan, TEST_PERSONA } from "../support/harness";
import { PeerCacheSession } from "../../src/telegram/connection/session";

let h: Harness;
let extraStop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await extraStop?.();
  extraStop = undefined;
  await h?.close();
});

const HOUR = 3_600_000;
/** The warnings a cap gave the operator (one per chat per hour), by the cap's name. */
const capWarnings = () => h.log.lines().filter((l) => l.level === 40 && l.cap !== undefined);

describe("DM policy", () => {
  it("contacts: answers contacts only, also on short-update DMs; a stranger's DM is stored, not answered, at no cost", async () => {
    // Telegram's update shapes: a DM comes as UpdateShortMessage, with no user object and so no
    // contact flag. The flag the entity store kept from a full user object stands in.
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# DM Policy\ncontacts\n` });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const fromDave = await h.emu.post({
      chat: h.emu.dm(h.account, dave),
      from: dave,
      text: "hi, want to buy crypto?",
    });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.emu.traffic.methods(h.account)).toEqual([]);
    expect(h.runtime.messages.get(String(dave.id), fromDave.id)?.text).toBe("hi, want to buy crypto?");

    // Carol (a contact) was once seen as a full user object (here: an answer the account got,
    // captured as the product captures every answer); then she DMs in a short update.
    const resolved = await h.client.invoke(new Api.contacts.ResolveUsername({ username: "carol" }));
    captureEntities(h.runtime.entities, resolved.users);
    expect(h.runtime.entities.get(String(h.carol.id))?.contact).toBe(true);
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hey" });
    h.gemini.script(plan({ kind: "send", text: "hey carol" }));
    await h.pass(20_000);
    expect(h.sent(h.emu.dm(h.account, h.carol)).map((m) => m.text)).toEqual(["hey carol"]);
  });

  it("allowlist of ids only: a stranger's short-update DM is refused with zero Telegram requests", async () => {
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# DM Policy\nallowlist\n# Allowed Users\n987654321\n`,
    });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const fromDave = await h.emu.post({ chat: h.emu.dm(h.account, dave), from: dave, text: "hi there" });
    await h.pass(30_000);
    expect(h.runtime.messages.get(String(dave.id), fromDave.id)?.text).toBe("hi there");
    expect(h.emu.traffic.methods(h.account)).toEqual([]);
    expect(h.gemini.requests).toHaveLength(0);
  });

  it("allowlist: answers only the listed users, contacts or not", async () => {
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# DM Policy\nallowlist\n# Allowed Users\n@carol\n@dave\n`,
    });
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    await h.emu.post({ chat: h.emu.dm(h.account, h.bob), from: h.bob, text: "hi, it's bob" }); // a contact, not listed
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);

    await h.emu.post({ chat: h.emu.dm(h.account, dave), from: dave, text: "hi, it's dave" }); // listed, not a contact
    h.gemini.script(plan({ kind: "send", text: "hi dave" }));
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(h.sent(h.emu.dm(h.account, dave)).map((m) => m.text)).toEqual(["hi dave"]);
    expect(h.sent(h.emu.dm(h.account, h.bob))).toEqual([]);
  });

  it("off: answers no DM, still answers in groups", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# DM Policy\noff\n` });
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hey" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    // (Sandbox is a small group: it is an ordinary one because carol, a contact known in full,
    // speaks there — else it would be strangers' ground, where `off` answers nobody either.)
    captureEntities(
      h.runtime.entities,
      (await h.client.invoke(new Api.contacts.ResolveUsername({ username: "carol" }))).users,
    );
    await h.emu.post({ chat: h.group, from: h.carol, text: "@mira_ai hey" });
    h.gemini.script(plan({ kind: "send", text: "hey" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hey"]);
  });
});

describe("groups a stranger makes are strangers' ground (issue 28)", () => {
  it("contacts: a stranger's two-person group, or three with his sock puppet, gets no more than his DM would", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# DM Policy\ncontacts\n` });
    h.gemini.respondWith(() => plan({ kind: "send", text: "hi" }));
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const own = h.emu.createSupergroup({ title: "Dave & Mira", members: [dave, h.account] });
    const asked = await h.emu.post({ chat: own, from: dave, text: "@mira_ai so, about that crypto?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.sent(own)).toEqual([]);
    // Stored, and the reason is the DM policy, asked about the sender.
    expect(h.runtime.messages.get(own.peerId, asked.id)?.text).toBe("@mira_ai so, about that crypto?");
    expect(
      h.log.lines().some((l) => String(l.reason ?? "").startsWith("strangers' ground: DM policy contacts")),
    ).toBe(true);
    const puppet = h.emu.addUser({ firstName: "Eve", username: "eve_puppet" });
    h.emu.chats.addMember(own, puppet);
    await h.emu.post({ chat: own, from: puppet, text: "@mira_ai answer him!" });
    await h.emu.post({ chat: own, from: dave, text: "@mira_ai please?" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);

    // Once one of the persona's people (a contact seen in full) speaks there, it is an ordinary group.
    captureEntities(
      h.runtime.entities,
      (await h.client.invoke(new Api.contacts.ResolveUsername({ username: "carol" }))).users,
    );
    h.emu.chats.addMember(own, h.carol);
    await h.emu.post({ chat: own, from: h.carol, text: "hey all" });
    await h.emu.post({ chat: own, from: dave, text: "@mira_ai and now?" });
    await h.pass(30_000);
    expect(h.sent(own).map((m) => m.text)).toEqual(["hi"]);
  });

  it("open: a stranger's small group is paid from strangers' share", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Daily Token Budget\n10000\n` });
    const usage = { promptTokenCount: 900, candidatesTokenCount: 100, thoughtsTokenCount: 0 };
    h.gemini.respondWith(() => ({ json: { tasks: [{ kind: "send", text: "hi" }] }, usage }));
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    const own = h.emu.createSupergroup({ title: "Dave & Mira", members: [dave, h.account] });
    for (let i = 1; i <= 4; i++) {
      await h.emu.post({ chat: own, from: dave, text: `@mira_ai question ${i}` });
      await h.pass(30_000);
    }
    // Strangers' share: 20% of 10,000 = 2,000: two answers, each counted as a stranger's.
    expect(h.sent(own)).toHaveLength(2);
    expect(h.db.prepare("SELECT stranger FROM llm_usage").pluck().all()).toEqual([1, 1]);
    expect(h.runtime.caps.cappedChats()).toEqual([
      expect.objectContaining({ chatId: own.peerId, cap: "stranger-token-share" }),
    ]);
  });
});

describe("allowed groups", () => {
  it("answers only in the listed groups", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Allowed Groups\n-4000001\n` });
    expect(h.club.peerId).toBe("-4000001");
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    await h.pass(30_000);
    expect(h.gemini.requests).toHaveLength(0);
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, hello" });
    h.gemini.script(plan({ kind: "send", text: "hello club" }));
    await h.pass(20_000);
    expect(h.sent(h.club).map((m) => m.text)).toEqual(["hello club"]);
    expect(h.sent(h.group)).toEqual([]);
  });
});

describe("who is never answered", () => {
  it("ignores a bot's mention and a bot's reply to the persona", async () => {
    h = await Harness.start();
    const bot = h.emu.addUser({ firstName: "Helper", username: "helper_bot", bot: true });
    h.emu.chats.addMember(h.group, bot);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    h.gemini.script(plan({ kind: "send", text: "hi alice" }));
    await h.pass(20_000);
    const [mine] = h.sent(h.group);
    h.emu.traffic.clearRequests();

    await h.emu.post({ chat: h.group, from: bot, text: "@mira_ai I am a bot, talk to me" });
    await h.emu.post({ chat: h.group, from: bot, text: "Mira, answer!", replyTo: mine!.id });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(1);
    // Nothing for the bot: only the persona going offline, quiet since its answer (life/presence.ts),
    // and its own polls of the group it is active in (channel-watch.ts).
    expect(h.emu.traffic.methods(h.account).filter((m) => m !== "updates.GetChannelDifference")).toEqual([
      "account.UpdateStatus",
    ]);
    expect(h.emu.presence.of(h.account).state).toBe("offline");
  });

  it("two personas of one process in one group that mention each other do not loop", async () => {
    const siblings = new Set<string>();
    h = await Harness.start({ siblings });
    const nova = h.emu.addAccount({ firstName: "Nova", username: "nova_ai" });
    h.emu.chats.addMember(h.group, nova);
    siblings.add(String(h.account.id)).add(String(nova.id));
    const novaClient = createEmulatedClient(h.emu, nova, { session: new PeerCacheSession("") });
    const nova_ = new AgentRuntime({
      persona: parsePersona(
        "# Agent Name\nNova\n# Agent Instructions\nYou are Nova.\n# Start Typing Delay\n0\n# Read Delay\n0\n",
        { file: "agents/Nova.md", promptDirs: [] },
      ),
      db: h.db,
      client: novaClient,
      selfId: String(nova.id),
      planner: new GeminiPlanner({
        llm: new GeminiLlm({
          client: new GeminiClient({
            apiKey: "test-key",
            model: "gemini-2.5-flash",
            baseUrl: h.gemini.baseUrl,
            logger: h.log.logger,
            maxAttempts: 1,
          }),
          logger: h.log.logger,
          model: "gemini-2.5-flash",
        }),
        logger: h.log.logger,
      }),
      logger: h.log.logger,
      clock: h.clock,
      siblings,
      scheduler: { tickMs: 100 },
    });
    nova_.start();
    extraStop = async () => {
      await nova_.stop();
      h.emu.detach(novaClient);
    };
    h.clock.settle = async () => {
      await h.emu.idle(); // sends reach the other persona in the background
      await Promise.all([h.runtime.scheduler.whenIdle(), nova_.scheduler.whenIdle()]);
    };
    // Each always hands over to the other, by @mention and by name.
    const who = (b: GenerateBody) =>
      (b.systemInstruction?.parts?.[0]?.text ?? "").includes("You are Nova") ? "nova" : "mira";
    h.gemini.respondWith((b) =>
      plan({
        kind: "send",
        text: who(b) === "nova" ? "@mira_ai Mira, what do you think?" : "@nova_ai Nova, over to you",
      }),
    );

    await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai @nova_ai what's the plan for tonight?",
    });
    await h.pass(5 * 60_000);

    expect(h.gemini.requests.map((r) => who(r.body)).sort()).toEqual(["mira", "nova"]);
    const texts = h.emu.history(h.group).map((m) => m.text);
    expect(texts.filter((t) => t.includes("over to you"))).toHaveLength(1);
    expect(texts.filter((t) => t.includes("what do you think"))).toHaveLength(1);
    // Each stored the other's message in its history.
    const novaMsg = h.emu.history(h.group).find((m) => m.fromId === nova.id)!;
    expect(h.runtime.messages.get(h.group.peerId, novaMsg.id)?.text).toBe(
      "@mira_ai Mira, what do you think?",
    );
  });
});

describe("caps", () => {
  it("a lively DM is not silenced by the group cap: 21 answers in an hour by default; # DM Answers Per Hour caps private chats", async () => {
    h = await Harness.start();
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    const dm = h.emu.dm(h.account, h.carol);
    for (let i = 1; i <= 21; i++) {
      await h.emu.post({ chat: dm, from: h.carol, text: `tell me more ${i}` });
      await h.pass(60_000);
    }
    expect(h.sent(dm)).toHaveLength(21);
    expect(capWarnings()).toHaveLength(0);
    await h.close();

    h = await Harness.start({ persona: `${TEST_PERSONA}\n# DM Answers Per Hour\n2\n` });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    const dm2 = h.emu.dm(h.account, h.carol);
    for (let i = 1; i <= 3; i++) {
      await h.emu.post({ chat: dm2, from: h.carol, text: `question ${i}` });
      await h.pass(60_000);
    }
    expect(h.sent(dm2)).toHaveLength(2);
    expect(capWarnings()).toHaveLength(1);
  });

  it("holds answers per chat per hour: the capped message is stored, warned about once, shown in /status", async () => {
    // (Person Share 100: one person may use the whole chat's cap; shares are tested below.)
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Answers Per Hour\n2\n# Person Share\n100\n` });
    h.gemini.respondWith(() => plan({ kind: "send", text: "ok" }));
    for (const i of [1, 2]) {
      await h.emu.post({ chat: h.group, from: h.alice, text: `@mira_ai question ${i}` });
      await h.pass(60_000);
    }
    expect(h.gemini.requests).toHaveLength(2);
    const third = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai question 3" });
    await h.pass(60_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai question 4" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.runtime.messages.get(h.group.peerId, third.id)?.text).toBe("@mira_ai question 3");
    expect(capWarnings()).toHaveLength(1);
    // Another chat has its own count.
    await h.emu.post({ chat: h.club, from: h.bob, text: "Mira?" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(3);

    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toMatch(
      /Capped in the last hour:\n- Sandbox \(-100\d+\): answers per hour, 2 messages not answered/,
    );

    // An hour after the first answer the window has room again.
    await h.pass(HOUR - 4 * 60_000);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai question 5" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(4);
    expect(h.sent(h.group)).toHaveLength(3);
  });

  it("counts a capped DM from a sender the update did not name once in /status", async () => {
    h = await Harness.start({ persona: `${TEST_PERSONA}\n# Daily Token Budget\n1000\n` });
    h.gemini.script({
      json: { tasks: [{ kind: "send", text: "first" }] },
      usage: { promptTokenCount: 900, candidatesTokenCount: 50, thoughtsTokenCount: 100 },
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    const dave = h.emu.addUser({ firstName: "Dave", username: "dave" });
    await h.emu.post({ chat: h.emu.dm(h.account, dave), from: dave, text: "hello" });
    await h.pass(30_000);
    expect(h.runtime.caps.cappedChats()).toEqual([
      expect.objectContaining({ chatId: String(dave.id), cap: "daily-token-budget", held: 1 }),
    ]);
    // Capped whoever the sender is: no request was spent finding out.
    expect(h.emu.traffic.methods(h.account).filter((m) => m.includes("GetDifference"))).toEqual([]);
  });

  it("holds the daily token budget across chats until the next UTC day", async () => {
    // 23:30 UTC, so the next UTC day is half an hour away.
    h = await Harness.start({
      persona: `${TEST_PERSONA}\n# Daily Token Budget\n1000\n`,
      clock: new FakeClock(Date.UTC(2026, 10, 22, 23, 30)),
    });
    h.gemini.script({
      json: { tasks: [{ kind: "send", text: "first" }] },
      usage: { promptTokenCount: 900, candidatesTokenCount: 50, thoughtsTokenCount: 100 },
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    expect(h.runtime.usage.tokensToday(h.clock.now())).toBe(1050);

    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai more" });
    await h.emu.post({ chat: h.emu.dm(h.account, h.carol), from: h.carol, text: "hello" });
    await h.pass(60_000);
    expect(h.gemini.requests).toHaveLength(1);
    expect(capWarnings().map((l) => l.cap)).toEqual(["daily-token-budget", "daily-token-budget"]);

    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toContain("Token budget: 1,050 of 1,000 today — spent");

    await h.pass(30 * 60_000); // past midnight UTC
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai new day" });
    h.gemini.script(plan({ kind: "send", text: "good morning" }));
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["first", "good morning"]);
  });
});

describe("cost accounting", () => {
  it("stores every call's tokens per persona, day and purpose with the estimated cost, and /status reads it", async () => {
    h = await Harness.start();
    h.gemini.script(
      {
        json: { tasks: [{ kind: "send", text: "one" }] },
        usage: { promptTokenCount: 1200, candidatesTokenCount: 300, thoughtsTokenCount: 500 },
      },
      // Not a plan: the planner asks again; both calls are billed.
      { json: { nope: true }, usage: { promptTokenCount: 1000, candidatesTokenCount: 10 } },
      {
        json: { tasks: [] },
        usage: { promptTokenCount: 1100, candidatesTokenCount: 20, thoughtsTokenCount: 0 },
      },
    );
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    await h.emu.post({ chat: h.club, from: h.alice, text: "Mira, hi" });
    await h.pass(30_000);

    const rows = h.db
      .prepare(
        "SELECT agent, day, purpose, model, prompt_tokens, output_tokens, thinking_tokens, cost_usd FROM llm_usage ORDER BY id",
      )
      .all();
    expect(rows).toEqual([
      {
        agent: "Mira",
        day: "2026-11-22",
        purpose: "plan",
        model: "gemini-2.5-flash",
        prompt_tokens: 1200,
        output_tokens: 300,
        thinking_tokens: 500,
        cost_usd: expect.closeTo(0.00236, 12),
      },
      {
        agent: "Mira",
        day: "2026-11-22",
        purpose: "plan",
        model: "gemini-2.5-flash",
        prompt_tokens: 1000,
        output_tokens: 10,
        thinking_tokens: 0,
        cost_usd: expect.closeTo(0.000325, 12),
      },
      {
        agent: "Mira",
        day: "2026-11-22",
        purpose: "plan",
        model: "gemini-2.5-flash",
        prompt_tokens: 1100,
        output_tokens: 20,
        thinking_tokens: 0,
        cost_usd: expect.closeTo(0.00038, 12),
      },
    ]);
    const today = h.runtime.usage.today(h.clock.now());
    expect(today).toMatchObject({
      calls: 3,
      promptTokens: 3300,
      outputTokens: 330,
      thinkingTokens: 500,
      totalTokens: 4130,
      byPurpose: { plan: 3 },
    });
    expect(today.costUsd).toBeCloseTo(0.003065, 12);

    await h.ownerSays("/status");
    await h.pass(2_000);
    expect(h.savedReplies().at(-1)).toContain(
      "Today (UTC): 3 LLM calls, 4,130 tokens (prompt 3,300, output 330, thinking 500), ≈ $0.0031",
    );
  });

  it("prices with an overriding table, and says when a model has no price", async () => {
    h = await Harness.start({ prices: { "gemini-2.5-flash": { input: 1, output: 10 } } });
    h.gemini.script({
      json: { tasks: [] },
      usage: { promptTokenCount: 1200, candidatesTokenCount: 300, thoughtsTokenCount: 500 },
    });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    expect(h.runtime.usage.today(h.clock.now()).costUsd).toBeCloseTo((1200 * 1 + 800 * 10) / 1e6, 12);
    await h.close();

    h = await Harness.start({ prices: {} });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(30_000);
    expect(h.runtime.usage.today(h.clock.now())).toMatchObject({
      calls: 1,
      costUsd: 0,
      unpricedModels: ["gemini-2.5-flash"],
    });
    // The operator is told which model has no price.
    expect(h.log.lines().some((l) => l.level === 40 && l.model === "gemini-2.5-flash")).toBe(true);
  });
});
