import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/store/db";
import { RateLimitedError } from "../../src/tasks/errors";
import { MAX_PROBE_PAUSE_SEC, PROBE_CLAIM_MS, PROBE_WAIT_MS, RateLimits } from "../../src/tasks/rate-limits";
import { captureLogger } from "../support/log-capture";
import { tempDbPath } from "../support/temp-dir";

const peerFlood = () => new RateLimitedError("peer-flood", 3600, "PEER_FLOOD", { probe: true });
const T0 = Date.UTC(2026, 10, 22, 12);

describe("rate limits", () => {
  it("a paced limit (a Gemini outage) keeps the caller's pause as given, logs nothing, and lets one task probe", () => {
    const log = captureLogger();
    const limits = new RateLimits(openDatabase(tempDbPath()), "A", log.logger);
    limits.load(T0);
    const keys = ["llm", "llm:m"];
    const outage = (sec: number) =>
      new RateLimitedError("llm:m", sec, "LLM_503", { probe: true, paced: true });
    expect(limits.hit(outage(1.5), T0)).toBe(T0 + 1500);
    limits.claim(keys, 1, T0 + 1500);
    expect(limits.blockedUntil(keys, T0 + 1500, 2)).toBe(T0 + 1500 + PROBE_WAIT_MS);
    // The probe failed again: the caller's next pause, not a doubled one.
    expect(limits.hit(outage(3), T0 + 1600)).toBe(T0 + 4600);
    expect(limits.blockedUntil(keys, T0 + 4600, 2)).toBeLessThanOrEqual(T0 + 4600);
    limits.claim(keys, 2, T0 + 4600);
    limits.settled(keys, 2, true);
    expect(limits.blockedUntil(keys, T0 + 4601, 3)).toBe(0);
    expect(log.lines().filter((l) => Number(l.level) >= 30)).toEqual([]);
  });

  it("a limit without a timer pauses, lets one probe through, doubles on a repeat, lifts on success — across restarts", () => {
    const path = tempDbPath();
    const keys = ["flood:m:1", "peer-flood"];
    let limits = new RateLimits(openDatabase(path), "A", captureLogger().logger);
    limits.load(T0);
    expect(limits.hit(peerFlood(), T0)).toBe(T0 + 3600_000);
    expect(limits.blockedUntil(keys, T0 + 1000, 1)).toBe(T0 + 3600_000);

    // A restart during the pause keeps it.
    limits = new RateLimits(openDatabase(path), "A", captureLogger().logger);
    limits.load(T0 + 2000);
    const after = T0 + 3600_000;
    expect(limits.blockedUntil(keys, after, 1)).toBeLessThanOrEqual(after); // task 1 may probe
    limits.claim(keys, 1, after); // and starts
    expect(limits.blockedUntil(keys, after, 2)).toBe(after + PROBE_WAIT_MS); // task 2 waits for the probe
    limits.settled(keys, 1, false); // the probe failed for another reason: the next task probes
    expect(limits.blockedUntil(keys, after, 2)).toBeLessThanOrEqual(after);
    expect(limits.hit(peerFlood(), after)).toBe(after + 7200_000); // still limited: twice as long
    expect(limits.blockedUntil(keys, after + 7200_000, 3)).toBeLessThanOrEqual(after + 7200_000);
    limits.claim(keys, 3, after + 7200_000);
    limits.settled(keys, 3, true); // the probe went through: lifted

    limits = new RateLimits(openDatabase(path), "A", captureLogger().logger);
    limits.load(after + 7200_001);
    expect(limits.blockedUntil(keys, after + 7200_001, 4)).toBe(0);
    // A fresh PEER_FLOOD starts from the base pause again.
    expect(limits.hit(peerFlood(), after + 8000_000)).toBe(after + 8000_000 + 3600_000);
  });

  it("a limit without a timer met again during its pause (tasks that were already running) keeps the pause as it is", () => {
    const limits = new RateLimits(openDatabase(tempDbPath()), "A", captureLogger().logger);
    limits.load(T0);
    expect(limits.hit(peerFlood(), T0)).toBe(T0 + 3600_000);
    // Two more tasks in flight when the first met it: no doubling, no new end.
    expect(limits.hit(peerFlood(), T0 + 10)).toBe(T0 + 3600_000);
    expect(limits.hit(peerFlood(), T0 + 20)).toBe(T0 + 3600_000);
    // The probe after the pause fails: now it doubles, once.
    expect(limits.hit(peerFlood(), T0 + 3600_000)).toBe(T0 + 3 * 3600_000);
    expect(limits.current("peer-flood", T0 + 3600_001)).toMatchObject({
      until: T0 + 3 * 3600_000,
      probe: true,
    });
  });

  it("only a task that starts takes the probe: one that was merely looked at (then cancelled) does not block the next send; a claim never settled lapses", () => {
    const keys = ["flood:send:dm1", "peer-flood"];
    const limits = new RateLimits(openDatabase(tempDbPath()), "A", captureLogger().logger);
    limits.load(T0);
    const after = limits.hit(peerFlood(), T0);
    // Task 1 is looked at (it may probe), but is then cancelled — its chat replanned — without starting.
    expect(limits.blockedUntil(keys, after, 1)).toBeLessThanOrEqual(after);
    // The next send gets the probe; it did not wait for task 1.
    expect(limits.blockedUntil(["flood:send:dm2", "peer-flood"], after, 2)).toBeLessThanOrEqual(after);
    limits.claim(["flood:send:dm2", "peer-flood"], 2, after);
    expect(limits.blockedUntil(keys, after + 1, 3)).toBe(after + 1 + PROBE_WAIT_MS); // the others wait for it
    expect(limits.isLimited(keys, after + 1)).toBe(true);
    // Task 2 never settles (lost): its claim lapses, and the next send probes.
    expect(limits.blockedUntil(keys, after + PROBE_CLAIM_MS, 3)).toBeLessThanOrEqual(after + PROBE_CLAIM_MS);
    limits.claim(keys, 3, after + PROBE_CLAIM_MS);
    limits.settled(keys, 3, true);
    expect(limits.blockedUntil(keys, after + PROBE_CLAIM_MS + 1, 4)).toBe(0); // lifted
  });

  it("the pause of a limit without a timer is capped at a day", () => {
    const limits = new RateLimits(openDatabase(tempDbPath()), "A", captureLogger().logger);
    limits.load(T0);
    let now = T0;
    const pauses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const until = limits.hit(peerFlood(), now);
      pauses.push((until - now) / 3600_000);
      now = until;
    }
    expect(pauses).toEqual([1, 2, 4, 8, 16, MAX_PROBE_PAUSE_SEC / 3600, 24]);
  });

  it("a flood wait under two keys of one account key within a minute pauses the account key; a minute apart it does not", () => {
    const limits = new RateLimits(openDatabase(tempDbPath()), "A", captureLogger().logger);
    limits.load(T0);
    const flood = (chat: string, s: number) =>
      new RateLimitedError(`flood:send:${chat}`, s, `FLOOD_WAIT_${s}`, { accountKey: "flood:send" });
    limits.hit(flood("a", 100), T0);
    expect(limits.isLimited(["flood:send:c", "flood:send"], T0 + 1)).toBe(false);
    limits.hit(flood("b", 30), T0 + 61_000); // outside the window
    expect(limits.isLimited(["flood:send:c", "flood:send"], T0 + 61_001)).toBe(false);
    expect(limits.hit(flood("c", 50), T0 + 70_000)).toBe(T0 + 120_000); // b and c within a minute: until the later end
    expect(limits.blockedUntil(["flood:send:d", "flood:send"], T0 + 70_001)).toBe(T0 + 120_000);
  });
});
