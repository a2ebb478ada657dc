/**
 * GramJS's own update loop (`_updateLoop` in telegram/client/updates.js): every 9 s it pings the
 * server with PingDelayDisconnect and, from the second ping on, takes its "wake-up" branch —
 * `UpdateConnectionState(disconnected)` when the pong takes over 1 s, `connected` after every
 * pong, a reconnect (`_sender.reconnect()`) when none comes within 3 s — plus updates.getState
 * after 30 minutes without a request. A real connection runs it from `connect()`; an attached
 * client runs it from `attach()`.
 *
 * With no clock it is GramJS's loop as shipped, on real timers. With a clock (a test's or the
 * benchmark's fake one) it is the same source file, unchanged, evaluated with that clock's
 * `setTimeout` / `clearTimeout` / `Date.now` and a `sleep` on it in place of GramJS's helper, so
 * an hour of pings takes no hour. Nothing else of GramJS is touched: its other sleeps (reconnect
 * pause, flood waits) stay on real timers.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { compileFunction } from "node:vm";
import type { TelegramClient } from "telegram";
import { _updateLoop } from "telegram/client/updates.js";

/** A clock the network runs on: wall time and one-shot timers (src/base's FakeClock fits). */
export interface NetworkClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

type UpdateLoop = (client: TelegramClient) => Promise<void>;

const requireHere = createRequire(import.meta.url);
const loops = new WeakMap<NetworkClock, UpdateLoop>();

/** Start GramJS's update loop for `client`, on `clock` when one is given (see the file comment). */
export function startPingLoop(client: TelegramClient, clock: NetworkClock | undefined): void {
  const loop = clock ? loopOn(clock) : (_updateLoop as UpdateLoop);
  // GramJS starts it without awaiting too; it ends when the client is destroyed.
  void loop(client).catch(() => undefined);
}

/** GramJS's `_updateLoop`, its module evaluated with `clock`'s timers (cached per clock). */
function loopOn(clock: NetworkClock): UpdateLoop {
  const cached = loops.get(clock);
  if (cached) return cached;
  const file = requireHere.resolve("telegram/client/updates.js");
  const requireThere = createRequire(file);
  const helpers = requireThere("../Helpers") as Record<string, unknown>;
  const sleep = (ms: number) => new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
  const clockHelpers = Object.assign(Object.create(helpers) as object, { sleep });
  class ClockDate extends Date {
    static override now(): number {
      return clock.now();
    }
  }
  const fn = compileFunction(
    readFileSync(file, "utf8"),
    ["exports", "require", "module", "__filename", "__dirname", "setTimeout", "clearTimeout", "Date"],
    { filename: file },
  );
  const module = { exports: {} as Record<string, unknown> };
  const req = (id: string): unknown => (id === "../Helpers" ? clockHelpers : requireThere(id));
  fn(
    module.exports,
    req,
    module,
    file,
    dirname(file),
    (cb: () => void, ms: number) => clock.setTimeout(cb, ms),
    (h: unknown) => clock.clearTimeout(h),
    ClockDate,
  );
  const loop = module.exports._updateLoop as UpdateLoop;
  loops.set(clock, loop);
  return loop;
}
