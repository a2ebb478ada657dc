/**
 * The persona on the emulator planning through an OpenAI-compatible server (the loopback fake,
 * the real `openai` SDK): with OPENAI_BASE_URL and no Gemini key, a message addressed to her is
 * answered through that endpoint, the plan checks hold, and an outage delays the answer instead
 * of losing it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { formatStatus } from "../../src/owner/status";
import { Harness } from "../support/harness";
import { OpenAiFake } from "../support/openai-fake";

let h: Harness | undefined;
let fake: OpenAiFake | undefined;
afterEach(async () => {
  await h?.close();
  await fake?.close();
  h = undefined;
});

const planOf = (...tasks: unknown[]) => ({ json: { tasks } });

describe("planning through an OpenAI-compatible server", () => {
  it("answers a DM through the endpoint; the request holds the chat and the plan schema", async () => {
    fake = await OpenAiFake.start();
    h = await Harness.start({ openai: fake });
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hey mira, how was the concert?" });
    fake.reply(planOf({ kind: "send", text: "loud and lovely" }));
    await h.pass(20_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["loud and lovely"]);
    expect(h.gemini.requests).toHaveLength(0);
    const req = fake.requests.at(-1)!;
    expect(req.model).toBe("fake-model");
    expect(req.body.response_format?.type).toBe("json_schema");
    expect(fake.lastUserText()).toContain("how was the concert?");
    expect(req.body.messages[0]!.role).toBe("system");
  });

  it("a server without json_schema still plans (JSON mode); an invented task kind is rejected as with Gemini", async () => {
    fake = await OpenAiFake.start({ jsonSchema: false });
    h = await Harness.start({ openai: fake });
    const dm = h.emu.dm(h.account, h.alice);
    await h.emu.post({ chat: dm, from: h.alice, text: "you there?" });
    fake.reply(planOf({ kind: "send", text: "yep" }, { kind: "launch_rockets" }));
    await h.pass(20_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["yep"]);
    expect(fake.requests.map((r) => r.body.response_format?.type)).toContain("json_object");
  });

  it("a 503 outage delays the answer; it is sent once, when the server is back", async () => {
    fake = await OpenAiFake.start();
    h = await Harness.start({ openai: fake });
    const dm = h.emu.dm(h.account, h.bob);
    // Two attempts of the first call, then two failed probes, then the answer.
    fake.reply({ status: 503 }, { status: 503 }, { status: 503, retryAfter: "30" }, { status: 503 });
    fake.reply(planOf({ kind: "send", text: "pong" }));
    await h.emu.post({ chat: dm, from: h.bob, text: "ping" });
    await h.pass(20_000);
    expect(h.sent(dm)).toEqual([]);
    // /status names the provider of the model that is down.
    expect(formatStatus(h.runtime.status())).toMatch(
      /OpenAI-compatible fake-model unavailable since .*: 1 plan waiting/,
    );
    await h.pass(5 * 60_000);
    expect(h.sent(dm).map((m) => m.text)).toEqual(["pong"]);
    expect(fake.requests).toHaveLength(5);
    const warnings = h.log
      .lines()
      .filter((l) => l.level === 40)
      .map((l) => String(l.msg));
    expect(warnings).toContainEqual(
      expect.stringMatching(/^OpenAI-compatible fake-model is unavailable \(HTTP 503/),
    );
    expect(warnings).toContainEqual(
      expect.stringMatching(/^OpenAI-compatible fake-model is back after .*1 plan waited/),
    );
  });
});

describe("costs per provider", () => {
  it("/status names the OpenAI-compatible provider's calls and cost beside Gemini's", async () => {
    fake = await OpenAiFake.start();
    h = await Harness.start({ openai: fake });
    const dm = h.emu.dm(h.account, h.carol);
    await h.emu.post({ chat: dm, from: h.carol, text: "hi" });
    fake.reply(planOf({ kind: "send", text: "hello" }));
    await h.pass(20_000);
    const facts = h.runtime.status();
    expect(facts.costByProvider).toEqual([
      {
        provider: "OpenAI-compatible",
        calls: 1,
        costUsd: 0,
        unpriced: ["fake-model"],
        models: ["fake-model"],
      },
    ]);
    await h.ownerSays("/status");
    await h.pass(5_000);
    expect(h.savedReplies().join("\n")).toContain(
      "LLM cost by provider today: OpenAI-compatible ≈ $0.0000 + unpriced (fake-model) (1 call: fake-model)",
    );
  });
});

describe("a model the server does not have", () => {
  it("is one error line naming the model; nothing is sent, the runtime keeps running", async () => {
    fake = await OpenAiFake.start({ models: ["llama3.2"] });
    h = await Harness.start({ openai: fake });
    const dm = h.emu.dm(h.account, h.alice);
    await h.emu.post({ chat: dm, from: h.alice, text: "hello?" });
    await h.pass(60_000);
    expect(h.sent(dm)).toEqual([]);
    const errors = h.log.lines().filter((l) => Number(l.level) >= 50);
    expect(errors.map((l) => JSON.stringify(l))).toContainEqual(
      expect.stringMatching(/fake-model.*not found, try pulling it/),
    );
    const calls = fake.requests.length;
    await h.pass(10 * 60_000);
    // Not a crash loop: a permanent error is not retried every tick.
    expect(fake.requests.length - calls).toBe(0);
  });
});
