import type { Task } from "../task";
import type { HandlerOutcome } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";

/**
 * The answer-age check right before a message goes out: the plan may have waited, a restart or a
 * flood wait may have held it. Returns the outcome that drops it (logged once, here), or
 * undefined to go on. A task in doubt is not checked: it may already be out, and only the
 * server's answer to its retry settles it.
 */
export function tooLate(
  d: Pick<ActionHandlerDeps, "maxAnswerAgeMs" | "messages" | "clock" | "telegramNow" | "logger" | "lookedAt">,
  task: Pick<Task, "id" | "chatId" | "kind" | "inDoubt"> & {
    readonly payload: { readonly answers?: readonly number[] | undefined };
  },
): HandlerOutcome | undefined {
  const answers = task.payload.answers;
  if (d.maxAnswerAgeMs === undefined || task.inDoubt || !answers?.length) return undefined;
  const dates = answers
    .map((id) => d.messages.get(task.chatId, id)?.date)
    .filter((x): x is number => x !== undefined);
  if (dates.length === 0) return undefined;
  const newest = Math.max(...dates);
  const age = (d.telegramNow ?? (() => d.clock.now()))() - (d.lookedAt?.(newest) ?? newest);
  if (age <= d.maxAnswerAgeMs) return undefined;
  d.logger.info(
    {
      component: "tasks",
      chatId: task.chatId,
      taskId: task.id,
      kind: task.kind,
      answers,
      ageSec: Math.round(age / 1000),
      maxAgeSec: Math.round(d.maxAnswerAgeMs / 1000),
    },
    "answer dropped: the message it answers is older than the answer-age limit now",
  );
  return { type: "dropped", reason: "past the answer-age limit" };
}
