/**
 * A quiet GramJS client already attached to an emulator — the one-liner tests, the sandbox and
 * the benchmark use.
 */
import { TelegramClient } from "telegram";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";
import type { Session } from "telegram/sessions/Abstract.js";
import { StringSession } from "telegram/sessions/StringSession.js";
import type { TelegramEmulator } from "./emulator";
import type { EmuUser } from "./types";

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
  /** The client's session (default GramJS's empty StringSession; the product passes its own). */
  readonly session?: Session;
}

/** Builds a `TelegramClient` with GramJS logging off and attaches it to `emu` as `account`. */
export function createEmulatedClient(
  emu: TelegramEmulator,
  account: EmuUser,
  opts: EmulatedClientOptions = {},
): TelegramClient {
  const client = new TelegramClient(
    opts.session ?? new StringSession(""),
    EMULATOR_API_ID,
    EMULATOR_API_HASH,
    {
      baseLogger: new Logger(LogLevel.NONE),
      floodSleepThreshold: opts.floodSleepThreshold ?? 0,
    },
  );
  emu.attach(client, account);
  return client;
}
