import type { TaskHandler } from "../task-handler";
import type { ActionHandlerDeps } from "./action-deps";

declare module "../task" {
  interface TaskPayloads {
    wait: { seconds: number; until?: number };
  }
}

/** A wait holds the chat's graph; its end is stored so a restart does not restart the wait. */
export function waitHandler(d: Pick<ActionHandlerDeps, "clock">): TaskHandler<"wait"> {
  return {
    async run(task) {
      const now = d.clock.now();
      const until = task.payload.until ?? now + task.payload.seconds * 1000;
      if (now >= until) return { type: "done" };
      task.payload = { ...task.payload, until };
      return { type: "again", at: until };
    },
  };
}
