import type { Logger } from "pino";
import { Api, type TelegramClient } from "telegram";
import { Raw } from "telegram/events/Raw.js";

/**
 * Follow the account's blocklist as changed anywhere — the owner blocking or unblocking someone
 * in another Telegram app: `updatePeerBlocked` (docs/telegram-facts.md "Blocking someone
 * elsewhere"). Only the main blocklist (not the stories one, `blocked_my_stories_from`) and only
 * users count. Returns a function that detaches the handler.
 */
export function listenForBlocks(o: {
  client: TelegramClient;
  /** `userId` was blocked (`true`) or unblocked (`false`). */
  changed: (userId: string, blocked: boolean) => void;
  logger: Logger;
}): () => void {
  const event = new Raw({ types: [Api.UpdatePeerBlocked] });
  const callback = async (update: Api.TypeUpdate): Promise<void> => {
    if (!(update instanceof Api.UpdatePeerBlocked) || update.blockedMyStoriesFrom) return;
    if (!(update.peerId instanceof Api.PeerUser)) return;
    const userId = update.peerId.userId.toString();
    try {
      o.changed(userId, update.blocked === true);
    } catch (err) {
      o.logger.error(
        { component: "inbound", update: update.className, userId, err: String(err) },
        "blocklist change handling failed",
      );
    }
  };
  o.client.addEventHandler(callback, event);
  return () => o.client.removeEventHandler(callback, event);
}
