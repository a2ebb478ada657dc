import { Api } from "telegram";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

describe("replanning and stale plans", () => {
  it("drops a plan that comes back after a newer message arrived, and answers both with the newer plan", async () => {
    h = await Harness.start();
    const gate = latch();
    h.gemini.script(
      { after: gate.promise, then: plan({ kind: "send", text: "stale answer" }) },
      plan({ kind: "send", text: "fresh answer" }),
    );
    const first = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai first question" });
    const passing = h.pass(3200); // planning starts after the quiet window and waits on the held Gemini answer
    await until(() => h.gemini.requests.length === 1);
    const second = await h.emu.post({
      chat: h.group,
      from: h.alice,
      text: "@mira_ai actually, second question",
    });
    gate.release(); // only now does the first plan come back: stale
    await passing;
    await h.pass(20_000);
    // The first plan came back after the second message: dropped (its "stale answer" never sent).
    expect(h.gemini.requests).toHaveLength(2);
    // The newer plan answers both messages, not just the last one.
    expect(h.lastUserTurn(1)).toContain(`New for you: #${first.id}, #${second.id}.`);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["fresh answer"]);
  });

  it("after a crash mid-planning with a newer message waiting, answers once, with the newer plan", async () => {
    h = await Harness.start();
    const gate = latch();
    h.gemini.script({ after: gate.promise, then: plan({ kind: "send", text: "never" }) });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai one" });
    const passing = h.pass(3200); // planning starts after the quiet window
    await until(() => h.gemini.requests.length === 1);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai two" });
    h.crash(); // dies while the first plan is still being made
    gate.release();
    await passing;
    h.gemini.script(plan({ kind: "send", text: "answer to both" }));
    h.boot();
    await h.pass(20_000);
    expect(h.gemini.requests).toHaveLength(2);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["answer to both"]);
    expect(h.lastUserTurn()).toMatch(/one[\s\S]*two/);
  });

  it("stops a typing spell whose request was in flight when the chat was replanned and the new plan types nothing", async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "z".repeat(200) }), plan());
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai story time" });
    await h.pass(2900); // read at 2 s; planned after the 3 s quiet window, typing right after
    h.emu.faults.setDelay("messages.SetTyping", 2000); // the typing request is in flight for a while
    const passing = h.pass(200);
    await until(() => h.emu.traffic.methods(h.account).includes("messages.SetTyping"));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai stop" });
    // Still in flight: the cancel can only be honoured when the request comes back.
    expect(
      h.runtime.scheduler
        .openTasks(h.group.peerId)
        .some((t) => t.kind === "typing" && t.status === "running"),
    ).toBe(true);
    await passing;
    h.emu.faults.setDelay("messages.SetTyping", 0);
    await h.pass(60_000);
    const actions = h.emu.traffic.requests
      .filter((r) => r.request instanceof Api.messages.SetTyping)
      .map((r) => (r.request as Api.messages.SetTyping).action.className);
    expect(actions).toEqual(["SendMessageTypingAction", "SendMessageCancelAction"]);
    expect(h.sent(h.group)).toEqual([]);
  });
});

describe("crashes outside sends", () => {
  it("a crash during the reply fetch still gets the message answered after restart", async () => {
    h = await Harness.start({ replyTimeoutMs: 200 }); // the dead process's fetch gives up sooner
    const q = await h.emu.post({ chat: h.group, from: h.bob, text: "the meeting moved to 3pm" });
    const hh = h;
    hh.emu.faults.hang("channels.GetMessages", { when: "before-apply", onHang: () => hh.crash() });
    await hh.emu
      .post({ chat: hh.group, from: hh.alice, text: "@mira_ai is that right?", replyTo: q.id })
      .catch(() => {});
    hh.gemini.script(plan({ kind: "send", text: "yes, 3pm" }));
    hh.boot();
    await hh.pass(20_000);
    expect(hh.sent(hh.group).map((m) => m.text)).toEqual(["yes, 3pm"]);
    // The fetched context died with the process; the stored copy of bob's message stands in.
    expect(hh.nowParts()[0]).toContain(`[↩ reply to #${q.id} [Bob](tg:@bob)]`);
    expect(hh.historyParts()).toEqual([expect.stringMatching(/⟧ the meeting moved to 3pm$/)]);
  });
});

describe("the answer-age limit after a crash", () => {
  const pendingAtCrash = async (downMs: number, o: { maxAnswerAgeMs?: number } = {}) => {
    h = await Harness.start(o);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are we still on for lunch?" });
    // Stored and its received task saved, but the process dies before it plans.
    expect(
      h.runtime.scheduler
        .openTasks(h.group.peerId)
        .some((t) => t.kind === "received" && t.status === "pending"),
    ).toBe(true);
    h.crash();
    await h.clock.advance(downMs);
    h.gemini.script(plan({ kind: "send", text: "yes, see you there" }));
    h.boot();
    await h.pass(20_000);
  };

  it("a received task pending at a crash is not answered after a restart 3 h later (default limit 1 h)", async () => {
    await pendingAtCrash(3 * 3600_000);
    expect(h.gemini.requests).toHaveLength(0);
    expect(h.sent(h.group)).toEqual([]);
    // Settled, not left waiting: nothing of it is open any more.
    expect(h.runtime.scheduler.openTasks(h.group.peerId)).toEqual([]);
  });

  it("within the limit it is answered after the restart", async () => {
    await pendingAtCrash(30 * 60_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["yes, see you there"]);
  });

  it("a longer limit (MAX_ANSWER_AGE_SEC → maxAnswerAgeMs) answers it 3 h later", async () => {
    await pendingAtCrash(3 * 3600_000, { maxAnswerAgeMs: 4 * 3600_000 });
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["yes, see you there"]);
  });
});

describe("what must not block an answer", () => {
  it("a read mark that keeps failing does not stop the answer", async () => {
    h = await Harness.start();
    h.emu.faults.failNext("channels.ReadHistory", "INTERNAL", { code: 500, times: 100 });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hello" });
    h.gemini.script(plan({ kind: "send", text: "hi!" }));
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["hi!"]);
    // The read was tried (and failed) before the answer went out.
    const methods = h.emu.traffic.methods(h.account);
    expect(methods.indexOf("channels.ReadHistory")).toBeGreaterThanOrEqual(0);
    expect(methods.indexOf("channels.ReadHistory")).toBeLessThan(methods.indexOf("messages.SendMessage"));
  });

  it("a flood wait on typing neither delays the message nor is retried into", async () => {
    h = await Harness.start();
    h.emu.faults.failNext("messages.SetTyping", "FLOOD_WAIT_300");
    const t0 = h.clock.now();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai quick one" });
    h.gemini.script(plan({ kind: "send", text: "ok" }, { kind: "send", text: "z".repeat(100) }));
    await h.pass(40_000);
    const send = h.emu.traffic.requests.find((r) => r.method === "messages.SendMessage");
    expect(send!.at - t0).toBe(3000 + 1200); // planned after the 3 s quiet window, then 1 s + 2 chars / 10 of typing
    expect(h.sent(h.group)).toHaveLength(2);
    // Two typing spells (one of 11 s with refreshes) inside the 300 s flood: one request, the flooded one.
    expect(h.emu.traffic.methods(h.account).filter((m) => m === "messages.SetTyping")).toHaveLength(1);
  });

  it("a typing request that hangs delays the message by the request timeout at most", async () => {
    h = await Harness.start({ requestTimeoutMs: 300 });
    h.emu.faults.hang("messages.SetTyping", { when: "before-apply" });
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai ping" });
    h.gemini.script(plan({ kind: "send", text: "pong" }));
    const started = Date.now();
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["pong"]);
    expect(Date.now() - started).toBeLessThan(300 + 3000);
  });

  it("parks planning when Gemini asks to come back later than its client waits, then answers", async () => {
    h = await Harness.start();
    h.gemini.script({ status: 429, retryDelaySeconds: 45 }, plan({ kind: "send", text: "sorry, I'm back" }));
    const t0 = h.clock.now();
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai are you there?" });
    await h.pass(30_000);
    expect(h.sent(h.group)).toEqual([]);
    await h.pass(30_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["sorry, I'm back"]);
    expect(h.gemini.requests).toHaveLength(2);
    const send = h.emu.traffic.requests.find((r) => r.method === "messages.SendMessage");
    expect(send!.at - t0).toBeGreaterThanOrEqual(45_000);
  });
});

describe("replanning keeps what is owed", () => {
  it("a message whose answer was cancelled unsent is answered by the next plan", async () => {
    h = await Harness.start();
    const story = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai story time" });
    h.gemini.script(plan({ kind: "send", text: "z".repeat(200) }));
    await h.pass(4000); // planned, reading done, typing the long answer
    const bob = await h.emu.post({ chat: h.group, from: h.bob, text: "Mira, what's up?" });
    h.gemini.script(plan({ kind: "send", text: "one answer for alice and bob" }));
    await h.pass(30_000);
    expect(h.lastUserTurn(1)).toContain(`New for you: #${story.id}, #${bob.id}.`);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["one answer for alice and bob"]);
  });
});
