import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { listenForShutdown } from "../../src/runtime/shutdown";
import { captureLogger } from "../support/log-capture";
import { until } from "../support/wait";

describe("shutdown", () => {
  it("stops gracefully when the process that started this one is gone (npm killed, its shell dead): no orphan", async () => {
    const log = captureLogger();
    let parent = 4242;
    const s = listenForShutdown({
      logger: log.logger,
      source: new EventEmitter(),
      watchParent: true,
      ppid: () => parent,
      parentCheckMs: 5,
    });
    await new Promise((r) => setTimeout(r, 30));
    expect(s.signal.aborted).toBe(false);
    parent = 1; // reparented to init: the parent died
    await until(() => s.signal.aborted, 2000);
    expect(
      log
        .lines()
        .filter((l) => l.level === 40)
        .map((l) => l.msg),
    ).toEqual([expect.stringContaining("pid 4242")]); // one warning naming the parent that is gone
    s.dispose();
  });

  it("a first signal asks for a graceful stop, a second exits at once", () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const s = listenForShutdown({ logger: captureLogger().logger, source, exit: (c) => exits.push(c) });
    source.emit("SIGINT");
    expect(s.signal.aborted).toBe(true);
    expect(exits).toEqual([]);
    source.emit("SIGINT");
    expect(exits).toEqual([130]);
    s.dispose();
  });

  it("SIGHUP (a terminal's hang-up) stops gracefully like SIGTERM; a second one exits at once with 129", () => {
    const source = new EventEmitter();
    const exits: number[] = [];
    const log = captureLogger();
    const s = listenForShutdown({ logger: log.logger, source, exit: (c) => exits.push(c) });
    source.emit("SIGHUP");
    expect(s.signal.aborted).toBe(true);
    expect(exits).toEqual([]);
    expect(log.lines().map((l) => [l.signal, l.msg])).toEqual([
      ["SIGHUP", "shutting down; send the signal again to exit at once"],
    ]);
    source.emit("SIGHUP");
    expect(exits).toEqual([129]);
    s.dispose();
    expect(source.listenerCount("SIGHUP")).toBe(0);
  });
});
