import type { Logger } from "pino";
import { utils, type TelegramClient } from "telegram";
import { DeletedMessage, type DeletedMessageEvent } from "telegram/events/DeletedMessage.js";
import { EditedMessage, type EditedMessageEvent } from "telegram/events/EditedMessage.js";
import type { MessageChangeHandler } from "../inbound/changes";
import { parseMessage } from "./parse";

/**
 * Feed edits (UpdateEditMessage / UpdateEditChannelMessage, GramJS's EditedMessage event) and
 * deletions (UpdateDeleteMessages / UpdateDeleteChannelMessages) into `changes`. Edits of the
 * account's own messages count too (typed on another device). Returns a function that detaches.
 */
export function listenForChanges(o: { client: TelegramClient; changes: MessageChangeHandler; logger: Logger }): () => void {
  const editEvent = new EditedMessage({});
  const onEdit = async (e: EditedMessageEvent): Promise<void> => {
    const m = parseMessage(e.message);
    if (!m) return;
    try {
      o.changes.edited(m.chatId, m.messageId, m.text);
    } catch (err) {
      o.logger.error({ component: "inbound", chatId: m.chatId, messageId: m.messageId, err }, "edit handling failed");
    }
  };
  const deleteEvent = new DeletedMessage({});
  const onDelete = async (e: DeletedMessageEvent): Promise<void> => {
    const chatId = e.peer ? utils.getPeerId(e.peer) : undefined;
    try {
      o.changes.deleted(chatId, e.deletedIds);
    } catch (err) {
      o.logger.error({ component: "inbound", chatId, err }, "deletion handling failed");
    }
  };
  o.client.addEventHandler(onEdit, editEvent);
  o.client.addEventHandler(onDelete, deleteEvent);
  return () => {
    o.client.removeEventHandler(onEdit, editEvent);
    o.client.removeEventHandler(onDelete, deleteEvent);
  };
}
