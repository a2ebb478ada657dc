import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { SendCeiling } from "../../src/policy/send-ceiling";

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
});
