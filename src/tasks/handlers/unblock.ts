import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";

declare module "../task" {
  interface TaskPayloads {
    unblock: Record<string, never>;
  }
}

/** Unblock the DM's partner (it shares the block list's rate limit with block). */
export function unblockHandler(d: Pick<ActionHandlerDeps, "actions">): TaskHandler<"unblock"> {
  return {
    async run(task) {
      await d.actions.unblock({ chatId: task.chatId });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("block", t.chatId),
  };
}
