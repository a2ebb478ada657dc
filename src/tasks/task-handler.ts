import type { NewTask, Task, TaskKind } from "./task";

/** What a handler tells the scheduler after running a task once (tasks/outcomes.ts applies it). */
export type HandlerOutcome =
  /**
   * Finished. `spawn` tasks are created in the same transaction that marks this one done (a
   * plan's tasks carry the planning task's id), and `keep` writes there what else goes with it (a
   * plan's trace for the console). `planned`: a planning round (`received`) that made a plan — it
   * takes its chat's next plan number; a round that ended without asking the model (its messages
   * deleted or too old) did not.
   */
  | {
      readonly type: "done";
      readonly spawn?: readonly NewTask[];
      readonly keep?: () => void;
      readonly planned?: boolean;
    }
  /** Not finished: run again at `at` (the handler may have updated `task.payload`). */
  | { readonly type: "again"; readonly at: number }
  /** Not done, on purpose (the handler logged why): cancelled, and its dependents with it. */
  | { readonly type: "dropped"; readonly reason: string };

/** Runs one kind of task. One file per kind under tasks/handlers/; tasks/handlers/index.ts builds the map. */
export interface TaskHandler<K extends TaskKind = TaskKind> {
  run(task: Task<K>): Promise<HandlerOutcome>;
  /** Names of server-side limits this task is subject to (see RateLimitedError.key). */
  rateKeys?(task: Task<K>): readonly string[];
  /** Best-effort clean-up when a task that already started (e.g. typing) is cancelled. */
  onCancel?(task: Task<K>): Promise<void>;
}

/** A handler for every kind: a kind without one is a type error where the map is built. */
export type HandlerMap = { readonly [K in TaskKind]: TaskHandler<K> };
