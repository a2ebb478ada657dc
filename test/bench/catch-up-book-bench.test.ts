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

  it("flood with a restart inside the wait: the 50 channels named are fetched right after it, 150 of 150 messages stored within a minute", async () => {
    const r = await benchFloodWait({
      supergroups: 50,
      withNews: 50,
      perGroup: 3,
      waitSec: 30,
      restartAfterSec: 5,
    });
    expect(r.requestsDuringWait).toBe(0);
    expect(r.messagesWhileDown).toBe(150);
    expect(r.lost).toBe(0);
    expect(r.allStoredAfterWaitSec).toBeLessThanOrEqual(60);
  });

  it("big group: every mention planned within one poll interval and the quiet window", async () => {
    const r = await benchBigGroup({ mentions: 3 });
    expect(r.latenciesSec).toHaveLength(3);
    expect(r.maxSec).toBeLessThanOrEqual(r.goalSec);
  });
});
