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
} from "./emulator.js";
export { createEmulatedClient, type EmulatedClientOptions } from "./create-client.js";
export { dispatchUpdates } from "./dispatch-updates.js";
export { implementedMethods } from "./methods/registry.js";
export { isStandardReaction, standardReactions } from "../standard-reactions.js";
export type { TypingAction } from "./message-changes.js";
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
} from "./types.js";
