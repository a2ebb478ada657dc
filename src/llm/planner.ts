import type { Logger } from "pino";
import type { PlanPrompt } from "../context/prompt";
import type { GeminiClient, LlmUsage } from "./gemini-client";
import { PlanFormatError, planResponseSchema, validatePlan, type PlanCheckContext, type PlanTask, type RejectedTask } from "./plan-schema";

/** A checked plan: the tasks to run and the ones refused (already logged). */
export interface Plan {
  readonly tasks: readonly PlanTask[];
  readonly rejected: readonly RejectedTask[];
}

/** Context in, validated plan out. Production: Gemini; the sandbox without a key: dry. */
export interface Planner {
  plan(prompt: PlanPrompt, check: PlanCheckContext, meta: { readonly chatId: string }): Promise<Plan>;
  /** Be told the token usage of every LLM call the planner makes (absent: it makes none). */
  onUsage?(listener: (u: LlmUsage) => void): () => void;
}

/** Sampling temperature for plans: some variety in wording, little in structure. */
const PLAN_TEMPERATURE = 0.7;

/**
 * Plans with Gemini in JSON mode. Output that is not a plan (bad JSON, wrong shape, too many
 * tasks) earns one more call; a second failure throws PlanFormatError and nothing is sent.
 * HTTP retries (429/5xx) live in GeminiClient.
 */
export class GeminiPlanner implements Planner {
  constructor(private readonly o: { client: GeminiClient; logger: Logger }) {}

  onUsage(listener: (u: LlmUsage) => void): () => void {
    return this.o.client.onUsage(listener);
  }

  async plan(prompt: PlanPrompt, check: PlanCheckContext, meta: { chatId: string }): Promise<Plan> {
    let lastError: PlanFormatError | undefined;
    for (let attempt = 1; attempt <= 2; attempt++) {
      const res = await this.o.client.generateJson({
        systemInstruction: prompt.systemInstruction,
        contents: prompt.contents,
        responseSchema: planResponseSchema,
        temperature: PLAN_TEMPERATURE,
        purpose: "plan",
      });
      try {
        const plan = validatePlan(res.text, check);
        for (const r of plan.rejected) {
          this.o.logger.warn({ component: "planner", chatId: meta.chatId, task: r.index, id: r.id, kind: r.kind, reason: r.reason }, "plan task rejected");
        }
        return plan;
      } catch (e) {
        if (!(e instanceof PlanFormatError)) throw e;
        lastError = e;
        this.o.logger.warn({ component: "planner", chatId: meta.chatId, attempt, reason: e.message }, "model output is not a valid plan");
      }
    }
    throw lastError!;
  }
}

/** The JSON body the SDK sends for a plan request (what the dry sandbox prints). */
export function planRequestBody(prompt: PlanPrompt): Record<string, unknown> {
  return {
    contents: prompt.contents,
    systemInstruction: { role: "user", parts: [{ text: prompt.systemInstruction }] },
    generationConfig: { temperature: PLAN_TEMPERATURE, responseMimeType: "application/json", responseSchema: planResponseSchema },
  };
}

/** No key, no call: show the exact request body that would be sent, and stay silent. */
export class DryPlanner implements Planner {
  constructor(private readonly show: (body: Record<string, unknown>) => void) {}

  async plan(prompt: PlanPrompt): Promise<Plan> {
    this.show(planRequestBody(prompt));
    return { tasks: [], rejected: [] };
  }
}
