/**
 * A quiet GramJS client already attached to an emulator — the one-liner tests, the sandbox and
 * the benchmark use.
 */
import { TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import { PeerCacheSession } from "../session.js";
import type { TelegramEmulator } from "./emulator.js";
import type { EmuUser } from "./types.js";

// GramJS refuses an empty api id/hash; nothing is ever sent to Telegram with these.
const EMULATOR_API_ID = 1;
const EMULATOR_API_HASH = "telegram-emulator";

/** Options of `createEmulatedClient`. */
export interface EmulatedClientOptions {
  /**
   * GramJS sleeps and retries on FLOOD_WAIT up to this many seconds. Default 0, so flood waits
   * surface as errors.FloodWaitError at once (the scheduler reschedules instead of blocking).
   */
  readonly floodSleepThreshold?: number;
}

/** Builds a `TelegramClient` with GramJS logging off and attaches it to `emu` as `account`. */
export function createEmulatedClient(emu: TelegramEmulator, account: EmuUser, opts: EmulatedClientOptions = {}): TelegramClient {
  const client = new TelegramClient(new PeerCacheSession(""), EMULATOR_API_ID, EMULATOR_API_HASH, {
    baseLogger: new Logger(LogLevel.NONE),
    floodSleepThreshold: opts.floodSleepThreshold ?? 0,
  });
  emu.attach(client, account);
  return client;
}
