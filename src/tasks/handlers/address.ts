import type { ImplicitAddressing } from "../../inbound/addressing-implicit";
import type { Llm } from "../../llm/llm";
import { LLM_RATE_KEY, llmRateKey } from "../llm-wait";
import type { TaskHandler } from "../task-handler";

/**
 * An addressing call for a burst of group messages in a smart or talkative chat: does it address
 * the persona? (inbound/addressing-implicit.ts judges and acts on the verdict.) Waits for the
 * model with planning: the shared LLM key and the addressing model's.
 */
export function addressHandler(d: {
  readonly addressing: Pick<ImplicitAddressing, "judge">;
  readonly llm?: Pick<Llm, "modelFor">;
}): TaskHandler<"address"> {
  return {
    rateKeys: () => [LLM_RATE_KEY, ...(d.llm ? [llmRateKey(d.llm.modelFor("address"))] : [])],
    run: (task) => d.addressing.judge(task),
  };
}
