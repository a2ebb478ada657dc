import { afterEach, describe, expect, it } from "vitest";
import { SUMMARY_INSTRUCTION } from "../../src/summary/summariser";
import type { FakeReply, GenerateBody } from "../support/gemini-fake";
import { Harness, plan } from "../support/harness";
import { latch, until } from "../support/wait";

let h: Harness;
afterEach(async () => {
  await h?.close();
});

const NOTES = {
  goals_and_open_questions: ["when is the picnic?"],
  decisions: ["picnic in the park"],
  facts: ["Bob has a football"],
  outcomes: [],
  pending_actions: ["Bob brings the ball"],
};

const isSummary = (body: GenerateBody) => body.systemInstruction?.parts?.[0]?.text === SUMMARY_INSTRUCTION;
/** The user text of a request (all parts of all user turns). */
const userText = (body: GenerateBody) =>
  (body.contents ?? [])
    .filter((c) => c.role === "user")
    .flatMap((c) => c.parts ?? [])
    .map((p) => p.text ?? "")
    .join("\n");

/** Summary requests answer with `summary`, plan requests with the queue (or an empty plan). */
function answer(summary: () => FakeReply, plans: FakeReply[] = []): void {
  h.gemini.respondWith((body) => (isSummary(body) ? summary() : (plans.shift() ?? plan())));
}

/** `n` messages of chatter in the group's root lane (nobody addresses the persona); their ids. */
async function chatter(
  n: number,
  text = (i: number) => `chatter number ${i} about the picnic`,
): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push((await h.emu.post({ chat: h.group, from: i % 2 ? h.bob : h.alice, text: text(i) })).id);
  return ids;
}

const summaryRequests = () => h.gemini.requests.filter((r) => isSummary(r.body));
const planRequests = () => h.gemini.requests.filter((r) => !isSummary(r.body));

describe("rolling lane summaries", () => {
  it("summarises all but the last 10 once a room passes twice its window less 6 (26) unsummarised messages, with the summary model, and puts the summary before the recent messages", async () => {
    h = await Harness.start();
    answer(() => ({ json: NOTES }));
    const ids = await chatter(31);
    const ask = await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai so what did we decide?" });
    await h.pass(20_000);

    expect(summaryRequests()).toHaveLength(1);
    const req = summaryRequests()[0]!;
    expect(req.model).toBe("gemini-2.5-flash-lite-summary");
    // The summariser sees the lane's messages and the previous notes, nothing of the persona.
    const text = userText(req.body);
    expect(text).toContain(`⟦#${ids[0]} [Alice](tg:@alice)`);
    expect(text).toContain(`#${ids[21]} `);
    expect(text).not.toContain(`#${ids[22]} `);
    expect(text).not.toContain("@mira_ai so what");
    expect(JSON.stringify(req.body)).not.toContain("friendly member of this chat");
    expect(h.runtime.summaries.get(`root:${h.group.peerId}`)).toMatchObject({
      version: 1,
      fromId: ids[0],
      toId: ids[21],
    });
    // The plan made at the same time had no summary yet; the answer went out regardless.
    expect(userText(planRequests()[0]!.body)).not.toContain("[Summary of this conversation");

    await h.emu.post({
      chat: h.group,
      from: h.bob,
      text: "@mira_ai and who brings what?",
      replyTo: undefined,
    });
    await h.pass(20_000);
    const next = planRequests()[1]!.body;
    // The summary comes right after the chat's header, before the messages.
    expect(next.contents![0]!.parts![0]!.text).toMatch(/^⟦chat⟧ /);
    const first = next.contents![0]!.parts![1]!.text!;
    expect(first).toMatch(/^⟦summary⟧\n/);
    expect(first).toContain(`[Summary of this conversation up to message #${ids[21]}`);
    expect(first).toContain("- Bob brings the ball");
    expect(first).toContain("Decisions:\n- picnic in the park");
    // Every message the summary does not cover is in the window; of those it covers, only what the
    // window's newest 16 reach back to (ids 15 to 21) is shown again.
    const window = userText(next);
    for (const id of [...ids.slice(22), ask.id]) expect(window).toContain(`⟦#${id} `);
    for (const id of ids.slice(0, 15)) expect(window).not.toContain(`⟦#${id} `);
    expect(summaryRequests()).toHaveLength(1); // 12 new messages: not due again
    expect(ask.id).toBeGreaterThan(ids[30]!);
  });

  it("does not summarise a lane below the thresholds", async () => {
    h = await Harness.start();
    answer(() => ({ json: NOTES }));
    await chatter(25);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai hi" });
    await h.pass(20_000);
    expect(planRequests()).toHaveLength(1);
    expect(summaryRequests()).toHaveLength(0);
  });

  it("keeps the summary across a restart", async () => {
    h = await Harness.start();
    answer(() => ({ json: NOTES }));
    await chatter(31);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai so?" });
    await h.pass(20_000);
    expect(summaryRequests()).toHaveLength(1);

    h.crash();
    h.boot();
    await h.runtime.caughtUp;
    answer(() => ({ json: NOTES }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai remind me what we decided" });
    await h.pass(20_000);
    const last = planRequests()[planRequests().length - 1]!.body;
    expect(last.contents![0]!.parts![1]!.text).toContain("Decisions:\n- picnic in the park");
  });

  it("answers while the summariser hangs, in the same chat, more than once; the summary lands afterwards", async () => {
    h = await Harness.start();
    const gate = latch();
    answer(
      () => ({ after: gate.promise, then: { json: NOTES } }),
      [plan({ kind: "send", text: "on it" }), plan({ kind: "send", text: "still here" })],
    );
    // Time moves on once everything but the (hanging) summary is done.
    h.clock.settle = () =>
      until(() =>
        h.runtime.scheduler.openTasks().every((t) => t.status !== "running" || t.kind === "summarize"),
      );
    await chatter(31);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did we decide?" });
    await h.pass(20_000);
    expect(summaryRequests()).toHaveLength(1);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["on it"]);

    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai are you there?" });
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["on it", "still here"]);
    expect(summaryRequests()).toHaveLength(1); // one summary per lane at a time
    expect(h.runtime.summaries.get(`root:${h.group.peerId}`)).toBeUndefined();

    gate.release();
    await until(() => h.runtime.summaries.get(`root:${h.group.peerId}`) !== undefined);
  });

  it("answers when the summariser fails, and retries the summary later", async () => {
    h = await Harness.start();
    let failures = 2; // the client's two attempts of the first task run
    answer(
      () => (failures-- > 0 ? { status: 503 } : { json: NOTES }),
      [plan({ kind: "send", text: "here" })],
    );
    await chatter(31);
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what did we decide?" });
    await h.pass(5_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["here"]);

    await h.pass(15_000); // the summary model's outage pause (seconds), then one more try
    expect(summaryRequests()).toHaveLength(3);
    expect(h.runtime.summaries.get(`root:${h.group.peerId}`)).toMatchObject({ version: 1 });
    // The summary model's failure never held the answer back (the planner's model was fine).
    expect(h.runtime.llmAvailability()).toMatchObject({
      down: [],
      ended: 1,
      lastEnded: { model: "gemini-2.5-flash-lite-summary" },
    });
  });
});
