import { whereNow } from "./moved-chat";
import { TYPING_REFRESH_MS } from "../pacing";
import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { answersDeleted, tooLate } from "./answer-age";
import { bestEffort } from "./best-effort";

/**
 * Typing: shown at once, refreshed every 5 s (Telegram expires it after ~6 s), done when the
 * spell is over. The spell's end is stored in the payload, so a restart does not lengthen it.
 * Typing is decoration: a failed or rate-limited typing request is logged and the spell goes on
 * silently, so the message it precedes is never lost or delayed because of it.
 */
export function typingHandler(d: ActionHandlerDeps): TaskHandler<"typing"> {
  return {
    async run(task) {
      const now = d.clock.now();
      const until = task.payload.until ?? now + task.payload.seconds * 1000;
      if (now >= until) return { type: "done" };
      // Not for an answer that is too late to send (checked when the spell starts), nor one whose
      // question was deleted (checked at every refresh: the spell stops, the send is dropped).
      if (task.payload.until === undefined) {
        const late = tooLate(d, task);
        if (late) return late;
      } else {
        const gone = answersDeleted(d, task);
        if (gone) return gone;
      }
      const { topicId } = task.payload;
      await bestEffort(d, task.chatId, "typing", now, () =>
        d.actions.setTyping({
          chatId: whereNow(d, task.chatId).chatId,
          action: task.payload.action,
          ...(topicId !== undefined ? { topicId } : {}),
        }),
      );
      task.payload = { ...task.payload, until };
      return { type: "again", at: Math.min(now + TYPING_REFRESH_MS, until) };
    },
    async onCancel(task) {
      const { topicId } = task.payload;
      await bestEffort(d, task.chatId, "typing", d.clock.now(), () =>
        d.actions.setTyping({
          chatId: whereNow(d, task.chatId).chatId,
          action: "cancel",
          ...(topicId !== undefined ? { topicId } : {}),
        }),
      );
    },
  };
}
