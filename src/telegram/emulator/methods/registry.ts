/**
 * Every method the emulator implements, by TL name. Anything else is answered with
 * EMULATOR_UNIMPLEMENTED (see fake-sender) — never with a silent undefined.
 */
import { block, resolveUsername, unblock } from "./contacts.js";
import { getChannels, getChats } from "./chats.js";
import { getDialogs } from "./get-dialogs.js";
import { getHistory } from "./get-history.js";
import { getChannelMessages, getMessages } from "./get-messages.js";
import type { MethodHandler } from "./method.js";
import { readChannelHistory, readHistory } from "./read-history.js";
import { sendMedia, sendMessage } from "./send-message.js";
import { sendReaction } from "./send-reaction.js";
import { setTyping } from "./set-typing.js";
import { getStickerSet } from "./sticker-sets.js";
import { getChannelDifference, getDifference, getState } from "./update-state.js";
import { getFile } from "./upload.js";
import { exportAuthorization } from "./export-authorization.js";
import { getFullChannel, getFullChat } from "./full-chat.js";
import { getAccountConfig } from "./help-config.js";
import { getUsers } from "./users.js";

const HANDLERS: readonly MethodHandler[] = [
  sendMessage,
  sendMedia,
  setTyping,
  readHistory,
  readChannelHistory,
  sendReaction,
  getMessages,
  getChannelMessages,
  getHistory,
  getDialogs,
  getStickerSet,
  getFile,
  block,
  unblock,
  resolveUsername,
  getUsers,
  getState,
  getDifference,
  getChannelDifference,
  getChats,
  getChannels,
  exportAuthorization,
  getAccountConfig,
  getFullChannel,
  getFullChat,
];

const BY_NAME: ReadonlyMap<string, MethodHandler> = new Map(HANDLERS.map((h) => [h.method, h]));

/** The handler for a TL method name, or undefined when the emulator does not implement it. */
export function methodHandler(method: string): MethodHandler | undefined {
  return BY_NAME.get(method);
}

/** Names of all implemented methods (for docs and the sandbox's help). */
export function implementedMethods(): string[] {
  return [...BY_NAME.keys()];
}
