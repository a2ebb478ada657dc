import type { Logger } from "pino";
import type { MessageStore } from "../store/messages";
import type { MessageEntity } from "../base/types";

/** What happens to messages after they arrived: edits and deletions. */
export interface MessageChangeHandler {
  /** A message's text changed (its author edited it); `mentions`: the edited text's mention entities. */
  edited(chatId: string, messageId: number, text: string, mentions?: readonly MessageEntity[]): void;
  /** Messages were deleted; `chatId` undefined for DMs and basic groups (Telegram names no chat). */
  deleted(chatId: string | undefined, messageIds: readonly number[]): void;
}

/**
 * Edits and deletions cost one UPDATE each and no request: the stored text (and its mention
 * entities, replaced or cleared) follows an edit, so
 * a plan not made yet quotes the new wording; a deleted message is marked, leaves the history
 * the planner sees, and a reply to it says so. An edit never makes the persona answer (Telegram
 * does not notify mentions added by an edit either), and a message never stored is not fetched.
 */
export function createChangeHandler(d: {
  readonly messages: MessageStore;
  readonly logger: Logger;
}): MessageChangeHandler {
  return {
    edited(chatId, messageId, text, mentions) {
      if (d.messages.editText(chatId, messageId, text, mentions))
        d.logger.debug({ component: "inbound", chatId, messageId }, "message edited");
    },
    deleted(chatId, messageIds) {
      const n = d.messages.markDeleted(chatId, messageIds);
      if (n > 0)
        d.logger.debug(
          { component: "inbound", ...(chatId !== undefined ? { chatId } : {}), messageIds, marked: n },
          "messages deleted",
        );
    },
  };
}
