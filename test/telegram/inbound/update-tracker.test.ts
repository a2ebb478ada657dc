import pino from "pino";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/base/clock";
import { closeDatabase, openDatabase } from "../../../src/store/db";
import { ACCOUNT_BOX, UpdateStateStore } from "../../../src/store/update-state";
import { UpdateTracker, type Ticket } from "../../../src/telegram/inbound/update-tracker";
import { tempDbPath } from "../../support/temp-dir";

function setup(channelPts = 10) {
  const path = tempDbPath();
  const db = openDatabase(path);
  const state = new UpdateStateStore(db, "Mira");
  state.setChannel("-1001", channelPts);
  const clock = new FakeClock();
  const gaps: string[] = [];
  const tracker = new UpdateTracker({
    state,
    clock,
    logger: pino({ level: "silent" }),
    onGap: (b) => gaps.push(b),
  });
  const ran: { pts: number; ticket: Ticket | undefined }[] = [];
  const enter = (pts: number) => tracker.enter("-1001", pts, 1, 0, (ticket) => ran.push({ pts, ticket }));
  const stored = () => {
    closeDatabase(db);
    return new UpdateStateStore(openDatabase(path), "Mira").channelPts("-1001");
  };
  return { tracker, clock, gaps, ran, enter, state, stored };
}

describe("update tracker", () => {
  it("persists a pts only once every update below it is written", () => {
    const t = setup();
    t.enter(11);
    t.enter(12);
    expect(t.ran.map((r) => r.pts)).toEqual([11, 12]);
    t.ran[1]!.ticket!.done(); // 12 is written, 11 is not yet
    expect(t.state.channelPts("-1001")).toBe(10);
    t.ran[0]!.ticket!.done();
    expect(t.stored()).toBe(12);
  });

  it("holds an update behind a gap, runs it in order when the gap fills, and asks for the difference when it does not", async () => {
    const t = setup();
    t.enter(12); // 11 is missing
    expect(t.ran).toEqual([]);
    t.enter(11);
    expect(t.ran.map((r) => r.pts)).toEqual([11, 12]);
    t.enter(15); // 13 and 14 missing
    await t.clock.advance(499);
    expect(t.gaps).toEqual([]);
    await t.clock.advance(1);
    expect(t.gaps).toEqual(["-1001"]);
    // The difference brought 13..14 (written): the held update runs after them.
    t.tracker.beginSync("-1001");
    t.tracker.endSync("-1001", 14);
    expect(t.ran.map((r) => r.pts)).toEqual([11, 12, 15]);
  });

  it("runs old updates without moving the state, and holds live updates during a sync", () => {
    const t = setup();
    t.enter(9);
    expect(t.ran).toEqual([{ pts: 9, ticket: undefined }]);
    t.tracker.beginSync("-1001");
    t.enter(11);
    expect(t.ran).toHaveLength(1);
    t.tracker.endSync("-1001", 11); // the sync already covered 11: it runs as old
    expect(t.ran[1]).toEqual({ pts: 11, ticket: undefined });
    expect(t.stored()).toBe(11);
  });

  it("does not go deaf when the difference cannot be fetched, yet keeps the gap: the persisted pts stays below it and the difference is retried", async () => {
    const t = setup();
    t.enter(20); // 11..19 missing
    t.tracker.beginSync("-1001");
    t.tracker.failSync("-1001"); // the fetch failed
    expect(t.ran.map((r) => r.pts)).toEqual([20]); // live updates keep flowing
    t.ran[0]!.ticket!.done();
    t.enter(21);
    t.ran[1]!.ticket!.done();
    expect(t.ran.map((r) => r.pts)).toEqual([20, 21]);
    // A restart's catch-up starts below the gap, so it fetches 11..19.
    expect(t.state.channelPts("-1001")).toBe(10);
    expect(t.tracker.localPts("-1001")).toBe(10);
    // And without a restart: the difference is retried, with growing waits.
    expect(t.gaps).toEqual([]);
    await t.clock.advance(1_000);
    expect(t.gaps).toEqual(["-1001"]);
    t.tracker.beginSync("-1001");
    t.tracker.failSync("-1001");
    await t.clock.advance(1_999);
    expect(t.gaps).toHaveLength(1);
    await t.clock.advance(1);
    expect(t.gaps).toHaveLength(2);
    // A sync that succeeds covers the gap: the state moves on.
    t.tracker.beginSync("-1001");
    t.tracker.endSync("-1001", 21);
    expect(t.stored()).toBe(21);
  });

  it("a message that could not be stored does not move the state past it; it is fetched again", async () => {
    const t = setup();
    t.enter(11);
    t.enter(12);
    t.ran[0]!.ticket!.failed(); // 11's insert threw
    t.ran[1]!.ticket!.done();
    expect(t.state.channelPts("-1001")).toBe(10);
    expect(t.tracker.localPts("-1001")).toBe(10);
    await t.clock.advance(1_000);
    expect(t.gaps).toEqual(["-1001"]);
    t.tracker.beginSync("-1001");
    t.tracker.endSync("-1001", 12);
    expect(t.stored()).toBe(12);
  });

  it("when the first getState fails, the common box takes its baseline from the first live update and retries getState", async () => {
    const path = tempDbPath();
    const state = new UpdateStateStore(openDatabase(path), "Mira");
    const clock = new FakeClock();
    const gaps: string[] = [];
    const tracker = new UpdateTracker({
      state,
      clock,
      logger: pino({ level: "silent" }),
      onGap: (b) => gaps.push(b),
    });
    tracker.beginSync(ACCOUNT_BOX);
    tracker.failSync(ACCOUNT_BOX); // getState failed on a fresh account
    const ran: number[] = [];
    const dm = (pts: number) =>
      tracker.enter(ACCOUNT_BOX, pts, 1, 100, (ticket) => (ran.push(pts), ticket?.done()));
    dm(41);
    dm(42);
    expect(ran).toEqual([41, 42]); // not deaf
    expect(state.account()).toBeUndefined(); // a guessed baseline is not persisted
    expect(tracker.localPts(ACCOUNT_BOX)).toBeUndefined(); // the retry asks getState again
    await clock.advance(1_000);
    expect(gaps).toEqual([ACCOUNT_BOX]);
    tracker.beginSync(ACCOUNT_BOX);
    tracker.endSync(ACCOUNT_BOX, 42, { qts: 3, date: 200, seq: 5 });
    expect(state.account()).toMatchObject({ pts: 42, qts: 3, seq: 5 });
    dm(43);
    expect(ran).toEqual([41, 42, 43]);
    expect(state.account()?.pts).toBe(43);
    await clock.advance(120_000);
    expect(gaps).toEqual([ACCOUNT_BOX]); // nothing left to retry
  });
});
