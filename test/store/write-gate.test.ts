import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/base/clock";
import { GateClosedError, WriteGate } from "../../src/store/write-gate";
import { captureLogger } from "../support/log-capture";

const busy = () => Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });

describe("the write gate", () => {
  it("while the database is busy, work waits and then runs in arrival order, the failed unit told it is a retry", async () => {
    const clock = new FakeClock();
    const log = captureLogger();
    const gate = new WriteGate({ clock, logger: log.logger, file: "state/agents.db" });
    let locked = true;
    const done: string[] = [];
    const retries: string[] = [];
    const unit = (name: string) => (o: { retry: boolean }) => {
      if (o.retry) retries.push(name);
      if (locked) throw busy();
      done.push(name);
      return name;
    };
    const results = ["a", "b", "c"].map((n) => gate.run(unit(n)));
    await clock.advance(2_000);
    expect(done).toEqual([]);
    expect(gate.waiting).toBe(3);
    locked = false;
    const d = gate.run(unit("d")); // arrives while the others wait: behind them
    await clock.advance(10_000);
    expect(await Promise.all([...results, d])).toEqual(["a", "b", "c", "d"]);
    expect(done).toEqual(["a", "b", "c", "d"]);
    expect(retries[0]).toBe("a"); // only the unit that met the busy database is a retry
    expect(retries.every((r) => r === "a")).toBe(true);
    expect(
      log
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toEqual([
      // The operator's two lines: which file is busy, and when it is free again with what waited.
      expect.stringContaining("state/agents.db is busy"),
      expect.stringMatching(/state\/agents\.db is free again.*4 waiting updates/),
    ]);
  });

  it("other errors are the caller's; closing rejects what waits (it was not stored)", async () => {
    const clock = new FakeClock();
    const gate = new WriteGate({ clock, logger: captureLogger().logger, file: "x.db" });
    await expect(gate.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const waiting = gate.run(() => {
      throw busy();
    });
    gate.close();
    await expect(waiting).rejects.toBeInstanceOf(GateClosedError);
  });

  it("a unit whose failure comes back late keeps its arrival place; after a failed write (hold) what arrives waits until the queue has run, and a retry runs the waiting units together", async () => {
    const clock = new FakeClock();
    let failures = 0;
    const gate = new WriteGate({
      clock,
      logger: captureLogger().logger,
      file: "x.db",
      failures: () => failures,
    });
    const full = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    let diskFull = true;
    const stored: string[] = [];
    const running: string[] = [];
    const unit = (name: string) => async () => {
      running.push(name);
      if (diskFull) {
        failures++;
        throw full();
      }
      stored.push(name);
      return name;
    };
    // "a" arrives first and runs directly; its error travels back only later.
    const a = gate.arrive();
    const late = unit("a")().catch((e: unknown) => e);
    gate.hold(); // the failed write was told at once
    expect(gate.open).toBe(false);
    const b = gate.run(unit("b")); // arrives meanwhile: waits
    const err = await late;
    const aDone = gate.retry(unit("a"), err, a);
    expect(gate.waiting).toBe(2);
    running.length = 0;
    await clock.advance(300); // a retry while the disk is still full: the first unit fails, none after it starts
    expect(running).toEqual(["a"]);
    diskFull = false;
    running.length = 0;
    await clock.advance(10_000);
    expect(await Promise.all([aDone, b])).toEqual(["a", "b"]);
    expect(stored).toEqual(["a", "b"]);
    expect(running).toEqual(["a", "b"]);
    expect(gate.open).toBe(true);
  });
});
