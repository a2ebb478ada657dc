import type { Logger } from "pino";
import type { MessageStore } from "../store/messages";
import type { InboundMessage, ReplyContext } from "../types";
import { shouldRespondStrict, type AddressMatcher } from "./addressing";

/** Telegram's service notifications account (login codes etc.): never a conversation partner. */
export const SERVICE_ACCOUNT_ID = "777000";

export interface InboundPipelineDeps {
  readonly messages: MessageStore;
  readonly names: AddressMatcher;
  readonly logger: Logger;
  /** Hand an addressed message to the task graph (durably); `awaitingReply` holds it for the fetch. */
  readonly enqueue: (chatId: string, messageId: number, o: { awaitingReply: boolean }) => void;
  /** The reply context of a message enqueued with `awaitingReply`, once fetched. */
  readonly attachReply: (chatId: string, messageId: number, reply: ReplyContext) => void;
}

/**
 * Handle one inbound message. `fetchReply` resolves what it replies to (the adapter closes
 * over its raw platform message, text-only or not); it is only called for messages the
 * persona will answer, and must not throw (failures come back as `{kind: "unknown"}`).
 */
export type InboundHandler = (m: InboundMessage, fetchReply: () => Promise<ReplyContext>) => Promise<InboundOutcome>;

/** Why a message was not handed on; returned for tests and the sandbox's --verbose. */
export type InboundOutcome = "skipped-own" | "skipped-bot" | "skipped-service" | "duplicate" | "stored" | "addressed";

/**
 * The inbound path: skip → persist → address → (only if addressed) reply context → enqueue.
 * Every message pays one insert; nothing else touches the network or the LLM unless the
 * persona is addressed.
 */
export function createInboundPipeline(d: InboundPipelineDeps): InboundHandler {
  return async (m, fetchReply) => {
    if (m.out) return "skipped-own";
    if (m.senderIsBot) return "skipped-bot";
    if (m.senderId === SERVICE_ACCOUNT_ID) return "skipped-service";
    const chat = {
      chatId: m.chatId,
      chatType: m.chatType,
      ...(m.accessHash !== undefined ? { accessHash: m.accessHash } : {}),
    };
    if (m.chatType !== "dm") d.messages.upsertChat({ ...chat, ...(m.chatTitle !== undefined ? { title: m.chatTitle } : {}) });
    const fresh = d.messages.insert({
      chatId: m.chatId,
      messageId: m.messageId,
      senderId: m.senderId,
      senderName: m.senderName,
      date: m.date,
      text: m.text,
      isAgent: false,
      ...(m.replyToId !== undefined ? { replyToId: m.replyToId } : {}),
      ...(m.topicId !== undefined ? { topicId: m.topicId } : {}),
    });
    if (!fresh) return "duplicate";
    if (!shouldRespondStrict(m, d.names)) return "stored";
    if (m.chatType === "dm") d.messages.upsertChat({ ...chat, title: m.senderName });
    // From here an addressed message survives a crash: it is committed and its task exists
    // before the (up to 5 s) reply fetch starts; the task waits for the fetch to finish.
    d.messages.commit();
    const isReply = m.replyToId !== undefined;
    d.enqueue(m.chatId, m.messageId, { awaitingReply: isReply });
    d.logger.debug({ component: "inbound", chatId: m.chatId, messageId: m.messageId }, "addressed");
    if (isReply) {
      let reply: ReplyContext = { kind: "unknown", id: m.replyToId! };
      try {
        reply = await fetchReply();
      } finally {
        // Whatever happened, release the waiting task (without a quote if the fetch broke).
        d.attachReply(m.chatId, m.messageId, reply);
      }
    }
    return "addressed";
  };
}
