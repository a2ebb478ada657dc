/**
 * `remember`: a plan's memory, stored when its task runs — not when the plan comes back. So it
 * passes the same admission gate as a send right before it starts (a plan in flight when the
 * owner typed `/pause`, a takeover, a DM policy now `off`: nothing is stored), and the same
 * answer-age check (a plan that waited past the limit stores nothing either). Who it is about,
 * who said it and in which message were decided when the plan was checked (plan-remember.ts,
 * memory/subject.ts), never by the model.
 */
import type { MemoryStore } from "../store/memories";
import type { TaskHandler } from "../tasks/task-handler";
import { tooLate, type AnswerAgeDeps } from "../tasks/handlers/answer-age";

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

/** The answer-age limit counts as for sends (tasks/handlers/answer-age.ts). */
export interface RememberHandlerDeps extends AnswerAgeDeps {
  readonly memories: Pick<MemoryStore, "remember">;
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
