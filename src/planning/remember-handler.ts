/**
 * `remember`: a plan's memory, stored when its task runs — not when the plan comes back. So it
 * passes the same admission gate as a send right before it starts (a plan in flight when the
 * owner typed `/pause`, a takeover, a DM policy now `off`: nothing is stored), and the same
 * answer-age check (a plan that waited past the limit stores nothing either). Who it is about,
 * who said it and in which message were decided when the plan was checked (received-handler.ts,
 * memory/subject.ts), never by the model.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import type { MemoryStore } from "../store/memories";
import type { MessageStore } from "../store/messages";
import type { TaskHandler } from "../tasks/task-handler";
import { tooLate } from "../tasks/handlers/answer-age";

declare module "../tasks/task" {
  interface TaskPayloads {
    /**
     * `subject`: the user id it is about (absent: a note about the chat); `toldBy`: who said it;
     * `sourceId`: the message it was said in; `answers`: the messages the plan answered.
     */
    remember: {
      content: string;
      subject?: string;
      toldBy?: string;
      sourceId?: number;
      answers?: number[];
    };
  }
}

export interface RememberHandlerDeps {
  readonly memories: Pick<MemoryStore, "remember">;
  readonly messages: MessageStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The answer-age limit (ms), as for sends. */
  readonly maxAnswerAgeMs?: number;
  /** Telegram's time, which message dates are (the answer-age limit); default the clock's. */
  readonly telegramNow?: () => number;
  /** When she could first read a message of `date` (asleep: her waking): its age counts from there. */
  readonly lookedAt?: (date: number) => number;
}

export function rememberHandler(d: RememberHandlerDeps): TaskHandler<"remember"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const p = task.payload;
      const r = d.memories.remember({
        chatId: task.chatId,
        ...(p.subject !== undefined ? { subject: p.subject } : {}),
        ...(p.toldBy !== undefined ? { toldBy: p.toldBy } : {}),
        ...(p.sourceId !== undefined ? { sourceId: p.sourceId } : {}),
        content: p.content,
        now: d.clock.now(),
      });
      d.logger.debug(
        {
          component: "memory",
          chatId: task.chatId,
          subject: p.subject ?? "chat",
          toldBy: p.toldBy,
          sourceId: p.sourceId,
          merged: r.merged,
        },
        "memory stored",
      );
      return { type: "done" };
    },
  };
}
