/**
 * Taking a gone asker's intentions out of the plans being made (life/recall-plans.ts), on open
 * tasks as the scheduler holds them: each intention by its row's asker, never by the plan's authors.
 */
import { describe, expect, it } from "vitest";
import { recallIntentionPlans, type RecallDeps } from "../../src/life/recall-plans";
import type { IntentionItem, Task, TaskPayloads } from "../../src/tasks/task";
import { captureLogger } from "../support/log-capture";

const DAVE = "5";
const ERIN = "6";
const item = (id: number): IntentionItem => ({ id, note: `note ${id}`, setAt: 0, dueAt: 0 });
/** Intention 1 is Dave's, 2 is Erin's. */
const askers: Record<number, string> = { 1: DAVE, 2: ERIN };

function graph(tasks: Task[]) {
  const cancelled: number[] = [];
  const saved: number[] = [];
  const replanned: TaskPayloads["received"][] = [];
  const d: RecallDeps = {
    open: () => tasks.filter((t) => t.status === "pending" || t.status === "running"),
    get: (id) => tasks.find((t) => t.id === id),
    cancel: (id) => cancelled.push(id),
    askerOf: (id) => askers[id],
    save: (t) => saved.push(t.id),
    replan: (_chat, _topic, payload) => replanned.push(payload),
    logger: captureLogger().logger,
  };
  return { d, cancelled, saved, replanned };
}

const received = (id: number, status: Task["status"], payload: TaskPayloads["received"]) =>
  ({
    id,
    chatId: "-1",
    kind: "received",
    status,
    payload,
    dependsOn: [],
    notBefore: 0,
    attempts: 0,
    createdAt: 0,
  }) as Task;

describe("recalling a gone asker's intentions from plans shared with others", () => {
  it("a burst of messages waiting to be planned carries Erin's reminder: only hers is taken out, nothing is cancelled", () => {
    const plan = received(1, "pending", {
      items: [{ messageId: 40 }],
      authors: [DAVE],
      intentions: [item(2)],
    });
    const g = graph([plan]);
    const out = recallIntentionPlans(g.d, ERIN, "-1", "its asker left the group");
    expect(out.map((r) => [r.plan.id, r.gone.map((i) => i.id), r.refused])).toEqual([[1, [2], false]]);
    expect((plan as Task<"received">).payload).toEqual({ items: [{ messageId: 40 }], authors: [DAVE] });
    expect(g.saved).toEqual([1]);
    expect(g.cancelled).toEqual([]);
    expect(g.replanned).toEqual([]);
  });

  it("a plan under way carries Dave's and Erin's (Erin first author): Dave goes — refused, his taken out, Erin's planned again", () => {
    const plan = received(1, "running", { items: [], authors: [ERIN], intentions: [item(1), item(2)] });
    const send = { ...received(2, "pending", { items: [] }), kind: "send", planId: 1 } as Task;
    const g = graph([plan, send]);
    const out = recallIntentionPlans(g.d, DAVE, "-1", "its asker was removed from the group");
    expect(out.map((r) => [r.plan.id, r.gone.map((i) => i.id), r.refused])).toEqual([[1, [1], true]]);
    expect((plan as Task<"received">).payload.intentions).toEqual([item(2)]); // the hand-over carries only hers
    expect(g.cancelled).toEqual([2]);
    expect(g.replanned).toEqual([{ items: [], intentions: [item(2)], authors: [ERIN] }]);
  });

  it("a plan carrying only Dave's reminder, whoever its authors: cancelled whole, nothing planned again", () => {
    const plan = received(1, "pending", { items: [], authors: [ERIN], intentions: [item(1)] });
    const g = graph([plan]);
    const out = recallIntentionPlans(g.d, DAVE, "-1", "its asker left the group");
    expect(out.map((r) => r.refused)).toEqual([true]);
    expect(g.cancelled).toEqual([1]);
    expect(g.replanned).toEqual([]);
    // Erin, its first author, going recalls nothing of it.
    expect(recallIntentionPlans(graph([plan]).d, ERIN, "-1", "left")).toEqual([]);
  });
});
