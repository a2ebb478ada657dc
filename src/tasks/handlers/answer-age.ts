import type { Task } from "../task";
import type { HandlerOutcome } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";

/**
 * What the answer-age check needs: the deps of every task that answers messages (a send, and the
 * remember, schedule and look_up tasks) include these.
 */
export type AnswerAgeDeps = Pick<
  ActionHandlerDeps,
  "maxAnswerAgeMs" | "messages" | "clock" | "telegramNow" | "logger" | "lookedAt"
>;

/**
 * The answer-age check right before a message goes out: the plan may have waited, a restart or a
 * flood wait may have held it. Every message it answers deleted meanwhile drops it too
 * (answersDeleted). Returns the outcome that drops it (logged once, here), or
 * undefined to go on. A task in doubt is not checked: it may already be out, and only the
 * server's answer to its retry settles it.
 */
export function tooLate(
  d: AnswerAgeDeps,
  task: Pick<Task, "id" | "chatId" | "kind" | "inDoubt"> & {
    readonly payload: { readonly answers?: readonly number[] | undefined };
  },
): HandlerOutcome | undefined {
  const answers = task.payload.answers;
  if (task.inDoubt || !answers?.length) return undefined;
  const gone = answersDeleted(d, task);
  if (gone) return gone;
  if (d.maxAnswerAgeMs === undefined) return undefined;
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

/**
 * Every message the answer is for was deleted (by its author, for everyone) since it was planned:
 * the answer is dropped — "Sure: 12 Elm Street, flat 3" to a question taken back is not sent. One
 * stored look-up per answered message, no request. Undefined to go on (one of them still stands,
 * or none is stored).
 */
export function answersDeleted(
  d: Pick<ActionHandlerDeps, "messages" | "logger">,
  task: Pick<Task, "id" | "chatId" | "kind" | "inDoubt"> & {
    readonly payload: { readonly answers?: readonly number[] | undefined };
  },
): HandlerOutcome | undefined {
  const answers = task.payload.answers;
  if (task.inDoubt || !answers?.length) return undefined;
  const stored = answers.map((id) => d.messages.get(task.chatId, id)).filter((m) => m !== undefined);
  if (stored.length === 0 || stored.some((m) => !m.deleted)) return undefined;
  d.logger.info(
    { component: "tasks", chatId: task.chatId, taskId: task.id, kind: task.kind, answers },
    "answer dropped: every message it answers was deleted",
  );
  return { type: "dropped", reason: "the messages it answers were deleted" };
}
