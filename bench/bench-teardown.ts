import { rmSync } from "node:fs";
import type { AgentRuntime } from "../src/runtime/agent-runtime";
import { closeDatabase, type Db } from "../src/store/db";
import type { TelegramEmulator } from "../emulator";
import type { TelegramClient } from "../src/telegram/inbound/listen";

/** What a benchmark workload set up around one runtime on the emulator. */
export interface BenchRig {
  readonly runtime: AgentRuntime;
  readonly emu: TelegramEmulator;
  readonly client: TelegramClient;
  readonly db: Db;
  /** The temporary folder holding the database. */
  readonly dir: string;
}

/** Stop the runtime (bounded by `graceMs`), detach its client, close and delete its database. */
export async function tearDownRig(r: BenchRig, graceMs?: number): Promise<void> {
  await r.runtime.stop(graceMs !== undefined ? { graceMs } : {});
  r.emu.detach(r.client);
  closeDatabase(r.db);
  rmSync(r.dir, { recursive: true, force: true });
}
