/**
 * History items: what the prompt knows of each thing that happened in a chat — a person's
 * message, the persona's own message, a reaction either way, or a system note — with the
 * sender as a speaker, the time, the reply target, mentions and quote. One renderer turns every
 * item into its envelope (envelope.ts), so every speaker reference comes from speaker.ts.
 */
import type { StoredMessage } from "../store/messages";
import type { MessageEntity } from "../base/types";
import {
  formatMessageEnvelope,
  formatReactionEnvelope,
  formatSystemEnvelope,
  type EnvelopeReply,
} from "./envelope";
import { normalizeMentions, type MentionResolver } from "./mentions";
import { escapeMediaMarkers, neutralizeReferences, sanitizeText } from "./sanitize";
import { capCodePoints, type Speaker } from "./speaker";
import type { SpeakerDirectory } from "./speaker-directory";

interface ItemBase {
  readonly chatId: string;
  /** "dm" | "group" | "supergroup" | "forum". */
  readonly chatType: string;
  /** Unix time in milliseconds (rendered RFC 3339, UTC). */
  readonly date: number;
}

/** A message: someone's (`inbound_user`) or the persona's own (`outbound_agent`). */
export interface MessageItem extends ItemBase {
  readonly kind: "inbound_user" | "outbound_agent";
  readonly messageId: number;
  readonly replyToId?: number;
  readonly sender: Speaker;
  /** The text as stored (raw; mentions are rewritten and everything sanitised when rendered). */
  readonly text: string;
  /** Mention entities of `text` (UTF-16 offsets). */
  readonly mentions?: readonly MessageEntity[];
  /** Telegram's partial quote of the replied-to message. */
  readonly quote?: string;
  /** A reply to a message of another chat: rendered as such, whatever reply a caller works out. */
  readonly replyElsewhere?: boolean;
  /** The media part as the media seam rendered it (see {@link MediaRenderer}); absent: the text says it. */
  readonly media?: string;
  /** `text` is the store's own placeholder (`[photo]`) for a media message nothing rendered: trusted, not escaped. */
  readonly placeholder?: boolean;
}

/** A reaction: someone's to a message (`inbound_reaction`) or the persona's (`outbound_reaction`). */
export interface ReactionItem extends ItemBase {
  readonly kind: "inbound_reaction" | "outbound_reaction";
  /** The message reacted to. */
  readonly messageId: number;
  readonly sender: Speaker;
  readonly emoji: string;
}

/** Something that happened in the chat, said by nobody (e.g. "earlier messages omitted"). */
interface SystemItem extends ItemBase {
  readonly kind: "system";
  readonly text: string;
}

export type HistoryItem = MessageItem | ReactionItem | SystemItem;

/**
 * The media seam: how a stored message's media is written into the prompt. Undefined (today):
 * the stored text already carries a short placeholder (`[photo]`, `[sticker 👍]`, parse.ts). A
 * media renderer returns the media part (e.g. a description) to put before the text, or
 * undefined when the message has none — the stored text is then expected to be the caption only.
 */
export type MediaRenderer = (m: StoredMessage) => string | MediaRendering | undefined;

/** A media part together with the text to show after it (the caption; "" when the stored text is only a placeholder). */
interface MediaRendering {
  readonly part: string;
  readonly text: string;
}

/** Context for {@link itemOfMessage}. */
export interface ItemContext {
  readonly chatType: string;
  readonly speakers: SpeakerDirectory;
  readonly media?: MediaRenderer;
}

/** The history item of a stored message. */
export function itemOfMessage(m: StoredMessage, c: ItemContext): MessageItem {
  const rendered = c.media?.(m);
  const media = typeof rendered === "object" ? rendered.part : rendered;
  return {
    kind: m.isAgent ? "outbound_agent" : "inbound_user",
    chatId: m.chatId,
    chatType: c.chatType,
    date: m.date,
    messageId: m.messageId,
    sender: m.isAgent ? c.speakers.self : c.speakers.sender(m.senderId, m.senderName),
    text: typeof rendered === "object" ? rendered.text : m.text,
    ...(m.replyToId !== undefined ? { replyToId: m.replyToId } : {}),
    ...(m.mentions !== undefined ? { mentions: m.mentions } : {}),
    ...(m.quote !== undefined ? { quote: m.quote } : {}),
    ...(m.replyElsewhere === true ? { replyElsewhere: true } : {}),
    ...(media !== undefined ? { media } : {}),
    ...(rendered === undefined && m.media !== undefined && m.media.caption !== true
      ? { placeholder: true }
      : {}),
  };
}

/** A picture sent inline with the planning request (an addressed photo, or the one it replies to). */
export interface InlineImage {
  /** The message that carries it. */
  readonly messageId: number;
  readonly mime: string;
  readonly bytes: Buffer;
}

/** How one item is rendered: its reply line and quote (decided by the prompt, which knows what is in view). */
export interface RenderOptions {
  readonly mentions: MentionResolver;
  readonly reply?: EnvelopeReply;
  readonly quote?: string;
  /** The header's time (the prompt's compact local time); default RFC 3339 UTC. */
  readonly time?: string;
  /** A marker in the header (how an addressed message reached the persona: `replies to you`). */
  readonly mark?: string;
  /** Cut the text to this many code points (an injected replied-to message is bounded). */
  readonly maxTextCodePoints?: number;
}

/** The envelope of an item. */
export function renderItem(item: HistoryItem, o: RenderOptions): string {
  switch (item.kind) {
    case "inbound_user":
    case "outbound_agent": {
      let text = normalizeMentions(item.text, item.mentions, o.mentions);
      // A typed "[voice 0:12: …]" must not pass for a media part the prompt wrote.
      if (item.placeholder !== true) text = escapeMediaMarkers(text);
      if (item.media !== undefined) {
        // A description may carry text from the picture or caption: no typed reference survives.
        const media = neutralizeReferences(sanitizeText(item.media));
        text = text === "" ? media : `${media}\n${text}`;
      }
      if (o.maxTextCodePoints !== undefined) text = capCodePoints(text, o.maxTextCodePoints);
      return formatMessageEnvelope({
        messageId: item.messageId,
        sender: item.sender,
        isAgent: item.kind === "outbound_agent",
        date: item.date,
        text,
        // Every reader (the planner, the addressing call, summaries) renders through here: a
        // reply into another chat is said to be one, never a reply to this chat's message.
        ...(item.replyElsewhere === true
          ? { reply: { kind: "elsewhere" } as const }
          : o.reply
            ? { reply: o.reply }
            : {}),
        ...(o.quote !== undefined ? { quote: o.quote } : {}),
        ...(o.time !== undefined ? { time: o.time } : {}),
        ...(o.mark !== undefined ? { mark: o.mark } : {}),
      });
    }
    case "inbound_reaction":
    case "outbound_reaction":
      return formatReactionEnvelope({
        sender: item.sender,
        isAgent: item.kind === "outbound_reaction",
        date: item.date,
        emoji: item.emoji,
        messageId: item.messageId,
        ...(o.time !== undefined ? { time: o.time } : {}),
      });
    case "system":
      return formatSystemEnvelope(item.date, item.text, o.time);
  }
}

/** The label of the chat's latest messages in a request (the planner's and the addressing call's). */
export const HISTORY_LABEL = "⟦history⟧ The latest messages, every one, in order.";
