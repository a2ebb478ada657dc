/**
 * `schedule`: a plan's intention, stored when its task runs — not when the plan comes back — so
 * it passes the admission gate right before, like a send or a `remember` (a plan in flight when
 * the owner typed `/pause` or took the chat over stores nothing), the answer-age check, and the
 * engine's own limits and switches (life/intentions.ts `schedule`). The row is written by `keep`,
 * in the transaction that marks this task done: a crash before that commit leaves neither, and
 * the task runs again; after it, both — so one plan's `schedule` is stored exactly once. Who
 * asked and when it is due were decided when the plan was checked (planning/intention-asker.ts).
 */
import type { NewIntention } from "../store/intentions";
import type { TaskHandler } from "../tasks/task-handler";
import { tooLate, type AnswerAgeDeps } from "../tasks/handlers/answer-age";

declare module "../tasks/task" {
  interface TaskPayloads {
    /**
     * `dueAt`, `setAt`: ms; `inReplyTo`: the message of the asker; `forUser`: the asker;
     * `answers`: the messages the plan answered (the answer-age check).
     */
    schedule: {
      note: string;
      dueAt: number;
      setAt: number;
      inReplyTo?: number;
      forUser?: string;
      answers?: number[];
    };
  }
}

/** The answer-age limit counts as for sends (tasks/handlers/answer-age.ts). */
export interface ScheduleHandlerDeps extends AnswerAgeDeps {
  readonly intentions: { schedule(n: NewIntention): unknown };
}

export function scheduleHandler(d: ScheduleHandlerDeps): TaskHandler<"schedule"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const p = task.payload;
      const n: NewIntention = {
        chatId: task.chatId,
        ...(task.topicId !== undefined ? { topicId: task.topicId } : {}),
        note: p.note,
        dueAt: p.dueAt,
        setAt: p.setAt,
        ...(p.inReplyTo !== undefined ? { inReplyTo: p.inReplyTo } : {}),
        ...(p.forUser !== undefined ? { forUser: p.forUser } : {}),
        ...(task.planId !== undefined ? { planId: task.planId } : {}),
      };
      return { type: "done", keep: () => void d.intentions.schedule(n) };
    },
  };
}
