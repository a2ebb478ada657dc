import { Api } from "telegram";
import type { TypingSource } from "../../tasks/quiet-window";
import { graphTopic } from "../../tasks/task";

/** How long a typing status lasts unless renewed (Telegram's clients show it ~6 s). */
export const TYPING_STATUS_MS = 6_000;
/** Past this many entries, lapsed ones are swept on the next report. */
const SWEEP_AT = 1_000;

/** Chat actions that mean "a message is on its way" (typing, recording, uploading, choosing a sticker). */
const COMPOSING = new Set([
  "SendMessageTypingAction",
  "SendMessageRecordAudioAction",
  "SendMessageUploadAudioAction",
  "SendMessageRecordRoundAction",
  "SendMessageUploadRoundAction",
  "SendMessageRecordVideoAction",
  "SendMessageUploadVideoAction",
  "SendMessageUploadPhotoAction",
  "SendMessageUploadDocumentAction",
  "SendMessageChooseStickerAction",
  "SendMessageGeoLocationAction",
  "SendMessageChooseContactAction",
]);

/**
 * Who is typing where, from Telegram's typing updates: UpdateUserTyping (DMs),
 * UpdateChatUserTyping (basic groups), UpdateChannelUserTyping (supergroups; `top_msg_id` names
 * a forum topic). A status lasts TYPING_STATUS_MS unless renewed; SendMessageCancelAction ends
 * it. Memory only — a Map entry per (chat, topic, user) — no request, no database write: the
 * scheduler asks it when a burst is due (see tasks/quiet-window.ts).
 */
export class TypingWatch implements TypingSource {
  private readonly until = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** Note a typing update; false for any other update (the caller goes on with it). */
  note(update: Api.TypeUpdate): boolean {
    if (update instanceof Api.UpdateUserTyping) {
      const user = update.userId.toString();
      this.set(user, undefined, user, update.action);
    } else if (update instanceof Api.UpdateChatUserTyping) {
      if (update.fromId instanceof Api.PeerUser)
        this.set(`-${update.chatId.toString()}`, undefined, update.fromId.userId.toString(), update.action);
    } else if (update instanceof Api.UpdateChannelUserTyping) {
      if (update.fromId instanceof Api.PeerUser)
        this.set(
          `-100${update.channelId.toString()}`,
          // From the wire a typing outside a forum topic has top_msg_id null, not undefined.
          update.topMsgId ?? undefined,
          update.fromId.userId.toString(),
          update.action,
        );
    } else return false;
    return true;
  }

  /** A user's status in a chat (and forum topic), by hand: the sandbox and tests use the updates instead. */
  set(chatId: string, topicId: number | undefined, userId: string, action: Api.TypeSendMessageAction): void {
    const key = keyOf(chatId, topicId, userId);
    if (!COMPOSING.has(action.className)) {
      // A cancel ends the status; other actions (emoji interactions, calls) say nothing about a message.
      if (action instanceof Api.SendMessageCancelAction) this.until.delete(key);
      return;
    }
    const now = this.now();
    if (this.until.size >= SWEEP_AT) for (const [k, t] of this.until) if (t <= now) this.until.delete(k);
    this.until.set(key, now + TYPING_STATUS_MS);
  }

  typingUntil(chatId: string, topicId: number | undefined, userId: string): number {
    return this.until.get(keyOf(chatId, topicId, userId)) ?? 0;
  }

  /** Entries held (lapsed ones included until the next sweep). */
  get size(): number {
    return this.until.size;
  }
}

const keyOf = (chatId: string, topicId: number | undefined, userId: string): string => {
  const topic = graphTopic(topicId);
  return topic === undefined ? `${chatId} ${userId}` : `${chatId}/${topic} ${userId}`;
};
