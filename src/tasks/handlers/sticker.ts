import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { tooLate } from "./answer-age";
import { whereNow } from "./moved-chat";
import { replyTarget } from "./reply-target";

declare module "../task" {
  interface TaskPayloads {
    sticker: {
      set: string;
      name: string;
      replyTo?: number;
      autoReplyTo?: number;
      topicId?: number;
      answers?: number[];
    };
  }
}

/** A sticker from a set; when the set or sticker is gone, its emoji as text instead. */
export function stickerHandler(d: ActionHandlerDeps): TaskHandler<"sticker"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const { set, name, topicId } = task.payload;
      const at = whereNow(d, task.chatId);
      const replyTo = at.moved ? undefined : replyTarget(d, task.chatId, task.payload);
      const common = {
        chatId: at.chatId,
        randomId: task.randomId!,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      };
      const res = await d.actions.sendSticker({ ...common, set, name });
      const where = {
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      };
      if (res !== "not-found") {
        d.onSent({ chatId: at.chatId, messageId: res, text: `[sticker ${name}]`, ...where });
        return { type: "done" };
      }
      // The set or sticker is gone: say it with the emoji instead. Same random_id — nothing was sent with it.
      d.logger.warn(
        { component: "tasks", chatId: task.chatId, set, name },
        "sticker not found; sending the emoji as text",
      );
      const id = await d.actions.sendText({ ...common, text: name });
      d.onSent({ chatId: at.chatId, messageId: id, text: name, ...where });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("sticker", whereNow(d, t.chatId).chatId),
  };
}
