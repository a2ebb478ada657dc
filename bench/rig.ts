/**
 * The rig every workload runs on: an emulated world in a temporary folder, one persona's runtime
 * on its real GramJS client attached to the emulator, with its own SQLite file — set up by
 * {@link benchWorld} and {@link startRig}, taken down by {@link tearDownRig}.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createEmulatedClient, TelegramEmulator, type EmulatorOptions, type EmuUser } from "../emulator";
import type { FakeClock } from "../src/base/clock";
import { AgentRuntime, type AgentRuntimeOptions } from "../src/runtime/agent-runtime";
import { closeDatabase, openDatabase, type Db } from "../src/store/db";
import { PeerCacheSession } from "../src/telegram/connection/session";
import type { TelegramClient } from "../src/telegram/inbound/listen";

/** Where a workload's scene is set: a temporary folder, and an emulator on the workload's clock. */
export interface BenchWorld {
  readonly dir: string;
  readonly emu: TelegramEmulator;
  readonly clock?: FakeClock;
}

/** What a benchmark workload set up around one runtime on the emulator. */
export interface BenchRig {
  readonly runtime: AgentRuntime;
  readonly emu: TelegramEmulator;
  readonly client: TelegramClient;
  readonly db: Db;
  /** The temporary folder holding the database. */
  readonly dir: string;
}

/**
/**
 * A new world for a workload named `name` (the folder's prefix), on `clock` when given, with the
 * emulator's other options (update limits…). GramJS's ping loop runs on real timers (nine seconds
 * between pings), unless `o.pingsOnClock` puts it on `clock` too — for a workload about the
 * connection itself (hours of pings in seconds).
 */
export function benchWorld(
  name: string,
  clock?: FakeClock,
  o: Omit<EmulatorOptions, "now" | "networkClock"> & { pingsOnClock?: boolean } = {},
): BenchWorld {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const { pingsOnClock, ...options } = o;
  const emu = new TelegramEmulator({
    ...options,
    ...(clock ? { now: () => clock.now() } : {}),
    ...(clock && pingsOnClock ? { networkClock: clock } : {}),
  });
  return { dir, emu, ...(clock ? { clock } : {}) };
}

/** The runtime's options a workload chooses (the rig supplies the database, client and account). */
export type RigOptions = Omit<AgentRuntimeOptions, "db" | "client" | "selfId" | "logger" | "clock"> & {
  /** The database file's name in the world's folder (default state.db). */
  readonly dbFile?: string;
  readonly logger?: AgentRuntimeOptions["logger"];
  /** A client already attached to the emulator as the account (e.g. an AccountLink's); default a new one. */
  readonly client?: TelegramClient;
};

/**
 * `account`'s persona runtime in `w`, started: a GramJS client with an empty session attached to
 * the emulator, a silent logger unless one is given, and on a fake clock, time that waits for
 * the scheduler to be idle before it moves on.
 */
export function startRig(w: BenchWorld, account: EmuUser, o: RigOptions): BenchRig {
  const { dbFile, client: given, ...options } = o;
  const db = openDatabase(join(w.dir, dbFile ?? "state.db"));
  const client = given ?? createEmulatedClient(w.emu, account, { session: new PeerCacheSession("") });
  const runtime = new AgentRuntime({
    logger: pino({ level: "silent" }),
    ...options,
    db,
    client,
    selfId: String(account.id),
    ...(w.clock ? { clock: w.clock } : {}),
  });
  const clock = w.clock;
  if (clock) clock.settle = () => runtime.scheduler.whenIdle();
  runtime.start();
  return { runtime, emu: w.emu, client, db, dir: w.dir };
}

/** Stop the runtime (bounded by `graceMs`), detach its client, close and delete its database. */
export async function tearDownRig(r: BenchRig, graceMs?: number): Promise<void> {
  await r.runtime.stop(graceMs !== undefined ? { graceMs } : {});
  r.emu.detach(r.client);
  closeDatabase(r.db);
  rmSync(r.dir, { recursive: true, force: true });
}
