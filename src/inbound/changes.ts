import type { Logger } from "pino";
import type { MessageStore } from "../store/messages";
import type { MessageEntity } from "../base/types";
import type { MediaDescriptor } from "../base/media-descriptor";
import type { LinkPreview } from "../base/link-preview";

/** What happens to messages after they arrived: edits and deletions. */
export interface MessageChangeHandler {
  /** A message's text changed (its author edited it); `mentions`: the edited text's mention entities. */
  edited(
    chatId: string,
    messageId: number,
    text: string,
    mentions?: readonly MessageEntity[],
    media?: MediaDescriptor,
  ): void;
  /** Telegram finished a link preview it had sent as pending (updateWebPage / updateChannelWebPage). */
  previewReady?(preview: LinkPreview): void;
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
    edited(chatId, messageId, text, mentions, media) {
      if (d.messages.editText(chatId, messageId, text, mentions))
        d.logger.debug({ component: "inbound", chatId, messageId }, "message edited");
      // An edit is also how Telegram may hand over a link preview it had sent as pending.
      if (d.messages.editLinkPreview(chatId, messageId, media) && media?.webpage)
        d.logger.debug(
          { component: "inbound", chatId, messageId, pending: media.webpage.pending === true },
          "link preview changed by an edit",
        );
    },
    previewReady(preview) {
      if (preview.id === undefined || preview.pending) return;
      const n = d.messages.completePreview({ ...preview, id: preview.id });
      d.logger.debug(
        { component: "inbound", previewId: preview.id, messages: n, empty: preview.empty === true },
        "link preview completed",
      );
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
