/**
 * Plan traces (store/plan-traces.ts): what each planning round asked and got, kept for the
 * console in a table of its own rather than in the task's payload, the system instruction once.
 * The real runtime against the emulator and the loopback Gemini fake, on a real SQLite file.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ConsoleQueries } from "../../src/store/console-queries";
import { Harness, plan } from "../support/harness";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("plan traces", () => {
  it("two plans in a group: the tasks' payloads carry no trace, both traces share one stored instruction, and the console reads each request back", async () => {
    h = await Harness.start();
    h.gemini.script(plan({ kind: "send", text: "noon" }), plan({ kind: "send", text: "the park" }));
    await h.emu.post({ chat: h.group, from: h.alice, text: "@mira_ai what time is lunch?" });
    await h.pass(20_000);
    await h.emu.post({ chat: h.group, from: h.bob, text: "@mira_ai and where?" });
    await h.pass(20_000);
    expect(h.sent(h.group).map((m) => m.text)).toEqual(["noon", "the park"]);

    const received = h.db
      .prepare("SELECT id, payload FROM tasks WHERE kind = 'received' AND status = 'done' ORDER BY id")
      .all() as { id: number; payload: string }[];
    expect(received).toHaveLength(2);
    for (const r of received) {
      expect(JSON.parse(r.payload)).not.toHaveProperty("trace");
      expect(r.payload.length).toBeLessThan(1000);
    }
    expect(h.db.prepare("SELECT count(*) FROM plan_traces").pluck().get()).toBe(2);
    expect(h.db.prepare("SELECT count(*) FROM plan_instructions").pluck().get()).toBe(1);

    const q = new ConsoleQueries(h.db);
    const [first, second] = received.map((r) => q.planTrace(r.id)!);
    const systemSent = h.gemini.requests
      .map((r) => r.body)
      .filter((b) => JSON.stringify(b).includes("and where?"))
      .at(-1)!.systemInstruction!.parts![0]!.text;
    expect(second!.instruction).toBe(systemSent);
    expect(first!.instruction).toBe(second!.instruction);
    expect(JSON.stringify(first!.trace)).toContain("what time is lunch?");
    expect(second!.trace).toMatchObject({ plan: { tasks: [{ kind: "send", text: "the park" }] } });
  });
});
