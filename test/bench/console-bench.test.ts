import { describe, expect, it } from "vitest";
import { benchConsole } from "../../bench/console-bench";

describe("the console benchmark", () => {
  it("serves the conversations list and the busiest chat's page from a store it fills (a small one here)", async () => {
    const r = await benchConsole({ messages: 2_000, chats: 20 });
    expect(r.chatsListMs).toBeGreaterThan(0);
    expect(r.chatPageMs).toBeGreaterThan(0);
    expect(r.oldPlanPageMs).toBeGreaterThan(0);
    expect(r.nowMs).toBeGreaterThan(0);
    expect(r.activitySeedMs).toBeGreaterThan(0);
  }, 60_000);
});
