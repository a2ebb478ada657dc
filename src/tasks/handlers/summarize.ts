import type { LaneSummaries } from "../../summary/lane-summaries";
import type { TaskHandler } from "../task-handler";

/**
 * A lane's rolling summary: fold the previous summary and the lane's next messages into a new
 * one. Runs on the graph `summary:<lane>`, off the answers' path (summary/lane-summaries.ts).
 */
export function summarizeHandler(d: {
  readonly summaries: Pick<LaneSummaries, "handler">;
}): TaskHandler<"summarize"> {
  return d.summaries.handler();
}
