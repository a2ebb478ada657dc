/**
 * What the planner's request is built from (`PromptInput`, `ChatHeader`) and what it is
 * (`PlanPrompt`); prompt.ts assembles one from the other.
 */
import type { Persona } from "../config/persona";
import type { LlmContent } from "../llm/types";
import type { StoredMessage } from "../store/messages";
import type { IntentionItem, ReceivedItem } from "../tasks/task";
import type { MemoryNote } from "../context/envelope";
import type { HistoryItem, InlineImage, MediaRenderer } from "../context/history-item";
import type { SpeakerDirectory } from "../context/speaker-directory";

/** Everything the planner needs for one call. */
export interface PlanPrompt {
  readonly systemInstruction: string;
  readonly contents: LlmContent[];
}
/** What the prompt says about the chat itself. */
export interface ChatHeader {
  readonly chatId: string;
  readonly chatType: string;
  /** Untrusted (anyone who can edit the group names it): shown only as sanitised, quoted data. */
  readonly title?: string;
  /** Members, when Telegram said (the entity store: no request). */
  readonly members?: number;
  /** In a forum: the title of the topic the conversation is in (untrusted, like the chat's). */
  readonly topic?: string;
}

export interface PromptInput {
  readonly persona: Persona;
  readonly chat: ChatHeader;
  /**
   * History, oldest first, targets not included: the earlier messages (`earlierIds`) and the
   * room's newest (context/window.ts).
   */
  readonly history: readonly StoredMessage[];
  /** Ids in `history` from before the room's part: shown under ⟦earlier⟧, text bounded. */
  readonly earlierIds?: ReadonlySet<number>;
  /** Extra history items placed among the messages by date (reactions). Optional. */
  readonly extraItems?: readonly HistoryItem[];
  /** The addressed messages this plan answers, with their reply contexts. */
  readonly targets: readonly ReceivedItem[];
  /** A stored message by id (replied-to messages that are not in view). */
  readonly lookup: (messageId: number) => StoredMessage | undefined;
  readonly speakers: SpeakerDirectory;
  /** The room's rolling summary, rendered (summary/summary-format.ts). */
  readonly summary?: string;
  /** The reply thread's summary, rendered, when the question is asked in one that has it. */
  readonly threadSummary?: string;
  /** Memories chosen within their budget (memory/recall.ts), most relevant first; rendered here. */
  readonly memories: readonly MemoryNote[];
  /** What the persona may send as stickers, with descriptions (media/sticker-menu.ts); default: its set names. */
  readonly stickerMenu?: string;
  /** The media seam (history-item.ts); default: the stored text's placeholder. */
  readonly media?: MediaRenderer;
  /** Pictures sent inline after the text (at most two; media/inline-images.ts). */
  readonly images?: readonly InlineImage[];
  /**
   * The persona's own intentions in this chat (life/intentions.ts): `pending`, what it already
   * means to do here later (so it does not promise twice); `due`, what falls due now and is the
   * reason for this call (with no new message, or beside them).
   */
  readonly intentions?: {
    readonly pending: readonly PendingIntention[];
    readonly due: readonly IntentionItem[];
  };
  /** Parts of their own placed just before ⟦now⟧ (⟦looked up⟧, ⟦abilities⟧: planning/lookup-section.ts, abilities.ts). */
  readonly extraParts?: readonly string[];
  readonly now: number;
}

/** A pending intention as the request shows it. */
interface PendingIntention {
  readonly id: number;
  readonly note: string;
  readonly dueAt: number;
}
