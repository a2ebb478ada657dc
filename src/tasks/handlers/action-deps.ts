import type { Logger } from "pino";
import type { MessageStore } from "../../store/messages";
import type { Clock } from "../../base/types";
import type { ChatActions } from "../actions-port";
import type { RateLimits } from "../rate-limits";
import type { Task } from "../task";
import type { VoiceMaker } from "./voice-port";

/** What the handlers of the chat actions (send, sticker, react, typing, read, wait, block, unblock) need. */
export interface ActionHandlerDeps {
  readonly actions: ChatActions;
  readonly clock: Clock;
  /** Telegram's time, which message dates are (the answer-age limit); default the clock's. */
  readonly telegramNow?: () => number;
  readonly logger: Logger;
  readonly messages: MessageStore;
  /**
   * The account's server limits (shared with the scheduler). Cosmetic actions (typing, read)
   * are skipped while limited instead of being retried into the limit — and the task they
   * decorate goes on; the limits they meet are recorded like any other.
   */
  readonly limits: RateLimits;
  /** Called after the persona's own message was sent, so it enters the chat history. */
  readonly onSent: (o: {
    chatId: string;
    messageId: number;
    text: string;
    replyTo?: number;
    topicId?: number;
  }) => void;
  /** Called after the persona's reaction was accepted, so it enters the chat history too. */
  readonly onReacted?: (o: { chatId: string; messageId: number; emoji: string }) => void;
  /**
   * The answer-age limit (ms): a send, a sticker or the typing before one whose newest answered
   * message is older than this is dropped, not sent hours late (absent: no check).
   */
  readonly maxAnswerAgeMs?: number;
  /**
   * When the persona first looked at a message of this date (its waking, for one that came in its
   * sleep): answer ages count from there. Absent: the message's own date.
   */
  readonly lookedAt?: (date: number) => number;
  /**
   * Write the task as it is now (its payload) to the store, durably, before a request that may
   * apply (her voice note's identity before its send). Absent: not kept before the outcome.
   */
  readonly keep?: (task: Task) => void;
  /** Her voice (`# Voice`): makes the voice notes of sends the plan chose to speak; absent: they are written. */
  readonly voice?: VoiceMaker;
  /** The supergroup a basic group was upgraded to (store/chat-moves.ts); undefined: it did not move. */
  readonly movedTo?: (chatId: string) => string | undefined;
}
