/**
 * In-process Telegram emulator that drives real GramJS clients (tests, sandbox, benchmark).
 */
export { TelegramEmulator } from "./emulator";
export { createEmulatedClient } from "./create-client";
export { isStandardReaction } from "../src/base/standard-reactions";
export type {
  DuplicateMode,
  EmuChat,
  CodeDelivery,
  EmuMediaInput,
  EmuMessageEvent,
  EmuUser,
  EmulatorOptions,
} from "./types";
