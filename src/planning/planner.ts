import type { Logger } from "pino";
import type { PlanPrompt } from "./prompt";
import type { LlmUsage } from "../llm/types";
import { requestBody, type Llm } from "../llm/llm";
import {
  planSchemaFor,
  validatePlan,
  type PlanAbilities,
  type PlanCheckContext,
  type PlanTask,
  type RejectedTask,
} from "./plan-schema";

/** A checked plan: the tasks to run and the ones refused (already logged). */
export interface Plan {
  readonly tasks: readonly PlanTask[];
  readonly rejected: readonly RejectedTask[];
  /** Set when the model gave no usable plan twice (blocked, empty, not a plan): the persona stays silent. */
  readonly silent?: string;
  /**
   * Not from a model: `dry-run` (no key: the request was shown, nothing is planned) or `echo`
   * (the sandbox's offline planner's canned plan). Absent: the model's plan.
   */
  readonly origin?: "dry-run" | "echo";
}

/**
 * Who a call is for (costs per person) and, when the persona's own intentions fell due, their
 * notes (the request shows them too; the sandbox's echo planner reads them here).
 */
export interface PlanMeta {
  readonly chatId: string;
  readonly userId?: string;
  readonly due?: readonly { readonly id: number; readonly note: string }[];
}

/** Context in, validated plan out. Production: Gemini; the sandbox without a key: dry. */
export interface Planner {
  plan(prompt: PlanPrompt, check: PlanCheckContext, meta: PlanMeta): Promise<Plan>;
  /** Be told the token usage of every LLM call the planner makes (absent: it makes none). */
  onUsage?(listener: (u: LlmUsage) => void): () => void;
}

/**
 * Plans through the generic structured call (llm.ts, purpose `plan`): the plan schema goes to
 * Gemini as `responseJsonSchema`; `validatePlan` keeps the good tasks of a partly bad plan.
 * Output that is not a plan, a blocked or an empty answer earns one more call; a second
 * failure means silence (one warning line, no failed task). HTTP retries live in GeminiClient.
 */
export class GeminiPlanner implements Planner {
  constructor(private readonly o: { llm: Llm; logger: Logger }) {}

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.o.llm.onUsage(listener);
  }

  async plan(prompt: PlanPrompt, check: PlanCheckContext, meta: PlanMeta): Promise<Plan> {
    const res = await this.o.llm.generateJson({
      purpose: "plan",
      schema: planSchemaFor(check),
      systemInstruction: prompt.systemInstruction,
      contents: prompt.contents,
      parse: (text) => validatePlan(text, check),
      chatId: meta.chatId,
      ...(meta.userId !== undefined ? { userId: meta.userId } : {}),
    });
    if (!res.ok) return { tasks: [], rejected: [], silent: res.reason };
    for (const r of res.value.rejected) {
      this.o.logger.warn(
        {
          component: "planner",
          chatId: meta.chatId,
          task: r.index,
          kind: r.kind,
          reason: r.reason,
        },
        "plan task rejected",
      );
    }
    for (const r of res.value.repaired) {
      this.o.logger.warn(
        { component: "planner", chatId: meta.chatId, task: r.index, kind: r.kind, reason: r.reason },
        "plan task corrected",
      );
    }
    return res.value;
  }
}

/** The JSON body the SDK sends for a plan request in a chat with these abilities (what the dry sandbox prints). */
export function planRequestBody(prompt: PlanPrompt, abilities: PlanAbilities): Record<string, unknown> {
  return requestBody({
    purpose: "plan",
    schema: planSchemaFor(abilities),
    systemInstruction: prompt.systemInstruction,
    contents: prompt.contents,
  });
}

/** No key, no call: show the exact request body that would be sent, and stay silent. */
export class DryPlanner implements Planner {
  constructor(private readonly show: (body: Record<string, unknown>) => void) {}

  async plan(prompt: PlanPrompt, check: PlanCheckContext): Promise<Plan> {
    this.show(planRequestBody(prompt, check));
    return { tasks: [], rejected: [], origin: "dry-run" };
  }
}
