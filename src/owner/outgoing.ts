import type { Logger } from "pino";
import type { InboundOutcome } from "../inbound/pipeline";
import type { ChatSettingsStore } from "../store/chat-settings";
import type { MessageStore } from "../store/messages";
import type { ChatStore } from "../store/chats";
import type { Scheduler } from "../tasks/scheduler";
import type { Clock, InboundMessage } from "../base/types";
import { openSendMatches, type OwnSends } from "./own-sends";
import { silenceChat } from "./silence";

/** Telegram's limit for one text message. */
const MAX_TEXT = 4096;

export interface OutgoingDeps {
  readonly selfId: string;
  /** The persona's name: the sender name of its own messages in the history. */
  readonly name: string;
  /** How long the persona stays silent in a chat after the owner wrote there. */
  readonly takeoverSilenceMs: number;
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  readonly own: OwnSends;
  readonly settings: ChatSettingsStore;
  readonly scheduler: Pick<Scheduler, "cancelPending" | "add" | "openTasks">;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Run an owner command; returns the answer. */
  readonly command: (text: string) => string;
}

/**
 * The account's own outgoing messages, as updates deliver them. Each is stored once as the
 * persona's own message (the history stays true whoever typed it). Then:
 * - one of the persona's own sends (see OwnSends) → nothing more;
 * - in Saved Messages, text starting with `/` that the owner typed (not a forward, not sent
 *   through an inline bot) → an owner command, answered there;
 * - anywhere else → the owner took over: the chat's pending plan is cancelled and the persona
 *   stays silent there until the message's date + the takeover silence (an old message that
 *   catch-up brings late silences only what is left of that time).
 * A repeated update (same chat and id) is recognised by the store and changes nothing.
 */
export function createOutgoingHandler(d: OutgoingDeps): (m: InboundMessage) => Promise<InboundOutcome> {
  return async (m) => {
    if (d.messages.has(m.chatId, m.messageId)) return "skipped-own";
    const ours =
      d.own.claim(m.chatId, m.messageId, m.text) ||
      openSendMatches(d.scheduler.openTasks(m.chatId), m.text, m.media?.duration);
    if (m.chatId !== d.selfId && m.chatType !== "dm") {
      d.chats.upsert({
        chatId: m.chatId,
        chatType: m.chatType,
        ...(m.chatTitle !== undefined ? { title: m.chatTitle } : {}),
        ...(m.chatUsername !== undefined ? { username: m.chatUsername } : {}),
        ...(m.accessHash !== undefined ? { accessHash: m.accessHash } : {}),
      });
    }
    const fresh = d.messages.insert({
      chatId: m.chatId,
      messageId: m.messageId,
      senderId: d.selfId,
      senderName: d.name,
      date: m.date,
      text: m.text,
      isAgent: true,
      ...(m.replyToId !== undefined ? { replyToId: m.replyToId } : {}),
      ...(m.topicId !== undefined ? { topicId: m.topicId } : {}),
    });
    d.messages.commit();
    if (!fresh || ours) return "skipped-own";
    if (m.chatId === d.selfId) {
      if (!m.text.trimStart().startsWith("/")) return "skipped-own"; // a note to self
      // A forward is someone else's words and an inline bot's message the bot's: kept as notes,
      // never run — a stranger's "/share 12 everywhere" saved for later must not widen anything.
      if (m.forwarded || m.viaBot) {
        d.logger.info(
          {
            component: "owner",
            messageId: m.messageId,
            forwarded: Boolean(m.forwarded),
            viaBot: Boolean(m.viaBot),
          },
          "a forwarded or inline-bot message in Saved Messages is not an owner command",
        );
        return "skipped-own";
      }
      const answer = d.command(m.text);
      d.logger.info({ component: "owner", command: m.text.trim().split(/\s+/)[0] }, "owner command");
      d.scheduler.add(d.selfId, [
        {
          kind: "send",
          payload: {
            text: answer.length > MAX_TEXT ? `${answer.slice(0, MAX_TEXT - 1)}…` : answer,
            replyTo: m.messageId,
          },
          needsRandomId: true,
        },
      ]);
      return "owner-command";
    }
    const until = m.date + d.takeoverSilenceMs;
    if (until > d.clock.now()) {
      const dropped = silenceChat(d, m.chatId, until, "the owner took over");
      d.logger.info(
        {
          component: "owner",
          chatId: m.chatId,
          messageId: m.messageId,
          silentUntil: new Date(until).toISOString(),
          dropped: dropped.length,
        },
        "the owner wrote in this chat from another device: staying silent there",
      );
    }
    return "takeover";
  };
}
