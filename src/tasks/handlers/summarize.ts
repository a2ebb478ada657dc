import type { Llm } from "../../llm/llm";
import type { LaneSummaries } from "../../summary/lane-summaries";
import { llmRateKey } from "../llm-wait";
import type { TaskHandler } from "../task-handler";

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
