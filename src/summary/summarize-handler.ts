import type { Llm } from "../llm/llm";
import type { LaneSummaries } from "./lane-summaries";
import { llmRateKey } from "../tasks/llm-wait";
import type { TaskHandler } from "../tasks/task-handler";

declare module "../tasks/task" {
  interface TaskPayloads {
    /** Fold a lane's next messages into its rolling summary; runs on the graph `summary:<lane>` (summary/lane-summaries.ts). */
    summarize: { lane: string };
  }
}

/** Rate key of summarise calls: a long 429 parks summaries only, never planning. */
const SUMMARY_RATE_KEY = "llm:summarise";

/**
 * A lane's rolling summary: fold the previous summary and the lane's next messages into a new
 * one (summary/lane-summaries.ts). Runs on the graph `summary:<lane>`, off the answers' path;
 * waits out an outage of the summary model with its other calls.
 */
export function summarizeHandler(d: {
  readonly summaries: Pick<LaneSummaries, "fold">;
  readonly llm?: Pick<Llm, "modelFor">;
}): TaskHandler<"summarize"> {
  return {
    rateKeys: () => [SUMMARY_RATE_KEY, ...(d.llm ? [llmRateKey(d.llm.modelFor("summarise"))] : [])],
    async run(task) {
      await d.summaries.fold(task.payload.lane);
      return { type: "done" };
    },
  };
}
