/**
 * In-process Telegram emulator that drives real GramJS clients (tests, sandbox, benchmark).
 */
export {
  DEFAULT_LOGIN_CODE_TTL_MS,
  DEFAULT_UPDATE_LIMITS,
  TelegramEmulator,
  type PreparedDelivery,
  type PostOptionsWithEcho,
  type RecordedLoginRequest,
} from "./emulator";
export { createEmulatedClient, type EmulatedClientOptions } from "./create-client";
export { dispatchUpdates } from "./dispatch-updates";
export { implementedMethods } from "./methods/registry";
export { isStandardReaction, standardReactions } from "../src/telegram/standard-reactions";
export type { TypingAction } from "./message-changes";
export type {
  DuplicateMode,
  EmuChat,
  CodeDelivery,
  EmuChatKind,
  EmuDevice,
  EmuMediaInput,
  EmuMessage,
  EmuMessageEvent,
  EmuReaction,
  EmuSticker,
  EmuStickerSet,
  EmuUpdateState,
  EmuUser,
  EmulatorOptions,
  FailNextOptions,
  HangOptions,
  LoginDetails,
  PostedMessage,
  PostOptions,
  RecordedRequest,
  TypingRecord,
  UpdateLimits,
  UpdateShapes,
} from "./types";
