import type { Logger } from "pino";
import { Api, utils, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/Raw.js";
import type { MessageChangeHandler } from "../../inbound/changes";
import { mentionEntities } from "../../context/mentions";
import { describeDbFailure } from "../../store/db";
import { parseMessage } from "./parse";
import { previewOf } from "./media-parse";

/**
 * Apply one update if it is an edit (UpdateEditMessage / UpdateEditChannelMessage) or a deletion
 * (UpdateDeleteMessages / UpdateDeleteChannelMessages) or a finished link preview
 * (UpdateWebPage / UpdateChannelWebPage); false for anything else. Used for live
 * updates and for the `otherUpdates` of a difference after downtime alike. Edits of the
 * account's own messages count too (typed on another device).
 */
export function applyChange(changes: MessageChangeHandler, update: Api.TypeUpdate): boolean {
  if (update instanceof Api.UpdateEditMessage || update instanceof Api.UpdateEditChannelMessage) {
    const m = update.message instanceof Api.Message ? parseMessage(update.message) : undefined;
    if (m) changes.edited(m.chatId, m.messageId, m.text, mentionEntities(m.entities), m.media);
    return true;
  }
  if (update instanceof Api.UpdateWebPage || update instanceof Api.UpdateChannelWebPage) {
    changes.previewReady?.(previewOf(update.webpage));
    return true;
  }
  if (update instanceof Api.UpdateDeleteChannelMessages) {
    changes.deleted(utils.getPeerId(new Api.PeerChannel({ channelId: update.channelId })), update.messages);
    return true;
  }
  if (update instanceof Api.UpdateDeleteMessages) {
    // Telegram names no chat: ids are unique per account across its DMs and basic groups.
    changes.deleted(undefined, update.messages);
    return true;
  }
  return false;
}

/** Feed live edits and deletions into `changes`. Returns a function that detaches the handler. */
export function listenForChanges(o: {
  client: TelegramClient;
  changes: MessageChangeHandler;
  logger: Logger;
  /** The database file, named by a database error. */
  dbFile?: string;
}): () => void {
  const event = new Raw({
    types: [
      Api.UpdateEditMessage,
      Api.UpdateEditChannelMessage,
      Api.UpdateDeleteMessages,
      Api.UpdateDeleteChannelMessages,
      Api.UpdateWebPage,
      Api.UpdateChannelWebPage,
    ],
  });
  const callback = async (update: Api.TypeUpdate): Promise<void> => {
    try {
      applyChange(o.changes, update);
    } catch (err) {
      o.logger.error(
        { component: "inbound", update: update.className, err: describeDbFailure(err, o.dbFile) },
        "edit or deletion handling failed",
      );
    }
  };
  o.client.addEventHandler(callback, event);
  return () => o.client.removeEventHandler(callback, event);
}
