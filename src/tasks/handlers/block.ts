import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";

declare module "../task" {
  interface TaskPayloads {
    block: Record<string, never>;
  }
}

/** Block the DM's partner (the plan may ask for it in a DM only). */
export function blockHandler(d: Pick<ActionHandlerDeps, "actions">): TaskHandler<"block"> {
  return {
    async run(task) {
      await d.actions.block({ chatId: task.chatId });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("block", t.chatId),
  };
}
