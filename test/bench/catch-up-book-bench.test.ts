import { describe, expect, it } from "vitest";
import { benchBigGroup, benchByTheBook, benchFloodWait } from "../../bench/catch-up-book-bench";

describe("the catch-up-by-the-book benchmarks", () => {
  it("P8 by the book on a small world: getDifference, one getChannelDifference per group with news, one dialogs page; nothing lost or doubled", async () => {
    const r = await benchByTheBook({ supergroups: 60, withNews: 3 });
    expect(r.catchUp.byMethod).toEqual({
      "updates.GetDifference": 1,
      "updates.GetChannelDifference": 3,
      "messages.GetDialogs": 1,
    });
    expect([r.catchUp.requests, r.catchUp.lost, r.catchUp.doubled]).toEqual([5, 0, 0]);
  });

  it("flood: no getChannelDifference during the wait, nothing lost after", async () => {
    const r = await benchFloodWait({ supergroups: 12, withNews: 6, waitSec: 30 });
    expect(r.requestsDuringWait).toBe(0);
    expect(r.firstRequestAfterSec).toBeGreaterThanOrEqual(30);
    expect(r.lost).toBe(0);
  });

  it("big group: every mention planned within one poll interval and the quiet window", async () => {
    const r = await benchBigGroup({ mentions: 3 });
    expect(r.latenciesSec).toHaveLength(3);
    expect(r.maxSec).toBeLessThanOrEqual(r.goalSec);
  });
});
