import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { whereNow } from "./moved-chat";

declare module "../task" {
  interface TaskPayloads {
    react: { messageId: number; emoji: string };
  }
}

/** A reaction to a message (the closest the chat allows, or none). */
export function reactHandler(d: ActionHandlerDeps): TaskHandler<"react"> {
  return {
    async run(task) {
      const { messageId, emoji } = task.payload;
      // The message is in a basic group since upgraded: that chat takes nothing more, not even a reaction.
      if (whereNow(d, task.chatId).moved) return { type: "done" };
      const put = await d.actions.react({ chatId: task.chatId, messageId, emoji });
      if (put === undefined) {
        // The chat allows no reaction like it: the persona reacts with nothing — not a failure.
        d.logger.info(
          { component: "tasks", chatId: task.chatId, emoji },
          "the chat does not allow this reaction nor a close one; not reacting",
        );
        return { type: "done" };
      }
      d.onReacted?.({ chatId: task.chatId, messageId, emoji: put });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("react", t.chatId),
  };
}
