/**
 * Every method the emulator implements, by TL name. Anything else is answered with
 * EMULATOR_UNIMPLEMENTED (see fake-sender) — never with a silent undefined.
 */
import { block, resolveUsername, unblock } from "./contacts";
import { getChannels, getChats } from "./chats";
import { getDialogs } from "./get-dialogs";
import { getHistory } from "./get-history";
import { getChannelMessages, getMessages } from "./get-messages";
import type { MethodHandler } from "./method";
import { readChannelHistory, readHistory } from "./read-history";
import { sendMedia, sendMessage } from "./send-message";
import { sendReaction } from "./send-reaction";
import { setTyping } from "./set-typing";
import { getStickerSet } from "./sticker-sets";
import { getChannelDifference, getDifference, getState } from "./update-state";
import { getFile } from "./upload";
import { saveBigFilePart, saveFilePart } from "./upload-parts";
import { exportAuthorization } from "./export-authorization";
import { getFullChannel, getFullChat } from "./full-chat";
import { getParticipant } from "./get-participant";
import { getAccountConfig } from "./help-config";
import { getAppConfig } from "./app-config";
import { getUsers } from "./users";
import { updateStatus } from "./account-status";

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
  saveFilePart,
  saveBigFilePart,
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
  getAppConfig,
  getFullChannel,
  getFullChat,
  getParticipant,
  updateStatus,
];

const BY_NAME: ReadonlyMap<string, MethodHandler> = new Map(HANDLERS.map((h) => [h.method, h]));

/** The handler for a TL method name, or undefined when the emulator does not implement it. */
export function methodHandler(method: string): MethodHandler | undefined {
  return BY_NAME.get(method);
}
