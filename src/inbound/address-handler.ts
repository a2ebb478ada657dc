import type { ImplicitAddressing } from "./addressing-implicit";
import type { Llm } from "../llm/llm";
import { LLM_RATE_KEY, llmRateKey } from "../tasks/llm-wait";
import type { TaskHandler } from "../tasks/task-handler";

declare module "../tasks/task" {
  interface TaskPayloads {
    /**
     * smart/talkative groups: messages the prefilter let through, waiting for one addressing call
     * (src/inbound/addressing-implicit.ts). `firstAt`: when the burst began (bounds the gathering);
     * `outcome`: what the call decided, kept for the hourly interjection cap.
     */
    address: {
      items: number[];
      firstAt: number;
      outcome?: "answer" | "interject" | "react" | "none" | "superseded";
      /** What the call answered (its reason cut at 500 characters), when it answered. */
      verdict?: {
        addressed: boolean;
        confidence: number;
        interject: number;
        reason: string;
        messageId: number;
      };
      /** Why the outcome is what it is: below the confidence, a policy or cap refusal, the hourly cap… */
      why?: string;
    };
  }
}

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
