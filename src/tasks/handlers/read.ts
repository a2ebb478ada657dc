import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";
import { bestEffort } from "./best-effort";

declare module "../task" {
  interface TaskPayloads {
    read: { maxId: number };
  }
}

/** The read mark, up to a message (0: the newest stored); a courtesy that never fails its task. */
export function readHandler(d: ActionHandlerDeps): TaskHandler<"read"> {
  return {
    async run(task) {
      // maxId 0 means "everything so far": the newest message stored for the chat.
      const maxId =
        task.payload.maxId || (d.messages.recent(task.chatId, Number.MAX_SAFE_INTEGER, 1)[0]?.messageId ?? 0);
      // A read mark is a courtesy: if it fails, the answer that waits for it must still go out.
      if (maxId > 0)
        await bestEffort(d, task.chatId, "read", d.clock.now(), () =>
          d.actions.markRead({ chatId: task.chatId, maxId }),
        );
      return { type: "done" };
    },
  };
}
