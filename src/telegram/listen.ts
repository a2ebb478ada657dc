import type { Logger } from "pino";
import type { TelegramClient } from "telegram";
import { NewMessage, type NewMessageEvent } from "telegram/events/index.js";
import type { InboundHandler } from "../inbound/pipeline";
import { parseMessage } from "./parse";
import { fetchReplyContext } from "./reply-context";

export type { TelegramClient } from "telegram";

export interface ListenOptions {
  readonly client: TelegramClient;
  readonly handler: InboundHandler;
  readonly selfId: string;
  readonly replyTimeoutMs: number;
  readonly logger: Logger;
}

/**
 * Feed every incoming message of the account into the inbound pipeline. The raw GramJS message
 * stays in the closure given to the pipeline, so the reply target can be fetched for any
 * message — text-only or media — but only once the pipeline decided to answer.
 * Returns a function that detaches the handler.
 */
export function listenForMessages(o: ListenOptions): () => void {
  const event = new NewMessage({ incoming: true });
  const callback = async (e: NewMessageEvent): Promise<void> => {
    const raw = e.message;
    const m = parseMessage(raw);
    if (!m) return;
    try {
      await o.handler(m, () => fetchReplyContext(raw, { selfId: o.selfId, timeoutMs: o.replyTimeoutMs, logger: o.logger }));
    } catch (err) {
      // GramJS swallows handler errors; make sure ours are seen.
      o.logger.error({ component: "inbound", chatId: m.chatId, messageId: m.messageId, err }, "inbound message handling failed");
    }
  };
  o.client.addEventHandler(callback, event);
  return () => o.client.removeEventHandler(callback, event);
}
