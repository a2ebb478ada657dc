import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { ceilingHold, SendCeiling } from "../../src/policy/send-ceiling";
import type { Task } from "../../src/tasks/task";

/** The account-wide ceiling on its own (the e2e case: strangers-intentions.test.ts "the account as a whole"). */
describe("the account's hourly send ceiling", () => {
  it("strangers use 45 of 60 an hour, the owner's people the rest, nobody more; an hour later it is open again", async () => {
    const clock = new FakeClock();
    const c = new SendCeiling(clock);
    const stranger = { trusted: false, first: false };
    const contact = { trusted: true, first: false };
    for (let k = 0; k < 45; k++) {
      expect(c.admit(`s${k}`, stranger)).toBeUndefined();
      c.note(`s${k}`);
    }
    expect(c.admit("s45", stranger)).toContain("kept for the owner's people");
    for (let k = 0; k < 15; k++) {
      expect(c.admit("carol", contact)).toBeUndefined();
      c.note("carol");
    }
    expect(c.admit("carol", contact)).toContain("60 messages sent in the last hour");
    expect(c.snapshot()).toEqual({ sent: 60, perHour: 60, first: 0, firstPerHour: 10 });
    await clock.advance(3_600_001);
    expect(c.admit("s0", stranger)).toBeUndefined();
  });

  it("spent: a stranger's send is refused, the owner's people's send and planning are held until the first of the hour's messages is an hour old", async () => {
    const clock = new FakeClock();
    const c = new SendCeiling(clock);
    const first = clock.now();
    for (let k = 0; k < 60; k++) {
      c.note("carol");
      await clock.advance(10_000);
    }
    const task = (kind: Task["kind"]) => ({ kind, chatId: "carol" }) as Task;
    expect(c.roomAt()).toBe(first + 3_600_000);
    expect(ceilingHold(c, task("send"), true, false)).toEqual({
      until: first + 3_600_000,
      reason: "account ceiling: 60 messages sent in the last hour (at most 60)",
    });
    expect(ceilingHold(c, task("received"), true, false)).toMatchObject({ until: first + 3_600_000 });
    expect(ceilingHold(c, task("send"), false, false)).toBe(
      "account ceiling: 60 messages sent in the last hour (at most 60)",
    );
    expect(ceilingHold(c, task("received"), false, false)).toBeUndefined();
    await clock.advance(first + 3_600_000 - clock.now());
    expect(c.roomAt()).toBe(clock.now());
    expect(ceilingHold(c, task("send"), true, false)).toBeUndefined();
  });

  it("spent: three planning rounds of the owner's people wait each for a slot of its own, the k-th for the k-th to free", async () => {
    const clock = new FakeClock();
    const c = new SendCeiling(clock);
    const first = clock.now();
    for (let k = 0; k < 60; k++) {
      c.note("alice");
      await clock.advance(10_000);
    }
    const plan = (id: number) => ({ id, kind: "received", chatId: `p${id}` }) as Task;
    const slot = (k: number) => first + k * 10_000 + 3_600_000;
    expect([1, 2, 3].map((id) => (ceilingHold(c, plan(id), true, false) as { until: number }).until)).toEqual(
      [slot(0), slot(1), slot(2)],
    );
    await clock.advance(slot(0) - clock.now());
    // One slot free: the first round takes it, the others still wait.
    expect(ceilingHold(c, plan(1), true, false)).toBeUndefined();
    expect(ceilingHold(c, plan(2), true, false)).toMatchObject({ until: slot(1) });
    c.note("p1"); // its answer went out
    await clock.advance(slot(1) - clock.now());
    expect(ceilingHold(c, plan(2), true, false)).toBeUndefined();
    expect(ceilingHold(c, plan(3), true, false)).toMatchObject({ until: slot(2) });
  });
});
