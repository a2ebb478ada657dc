import pino from "pino";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/runtime/clock";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { UpdateStateStore } from "../../src/store/update-state";
import { UpdateTracker, type Ticket } from "../../src/telegram/update-tracker";
import { tempDbPath } from "../support/temp-dir";

function setup(channelPts = 10) {
  const path = tempDbPath();
  const db = openDatabase(path);
  const state = new UpdateStateStore(db, "Mira");
  state.setChannel("-1001", channelPts);
  const clock = new FakeClock();
  const gaps: string[] = [];
  const tracker = new UpdateTracker({ state, clock, logger: pino({ level: "silent" }), onGap: (b) => gaps.push(b) });
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

  it("does not go deaf when the difference cannot be fetched", () => {
    const t = setup();
    t.enter(20);
    t.tracker.beginSync("-1001");
    t.tracker.endSync("-1001", undefined); // the fetch failed
    expect(t.ran.map((r) => r.pts)).toEqual([20]);
  });
});
