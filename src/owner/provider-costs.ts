/**
 * Today's LLM cost per provider — Gemini, an OpenAI-compatible server — for `/status` and the
 * console, when a persona's calls go to more than Gemini (llm/providers.ts). A local server's
 * models cost 0; a model without a price is said to be unpriced, not counted as free.
 */
import type { ModelCost } from "../store/usage";

export interface ProviderCost {
  readonly provider: string;
  readonly calls: number;
  readonly costUsd: number;
  /** Models of this provider with calls that have no price. */
  readonly unpriced: readonly string[];
  readonly models: readonly string[];
}

/** Group the day's per-model costs by provider; undefined when everything was Gemini (the usage line says it all). */
export function costsByProvider(
  models: readonly ModelCost[],
  providerOf: ((model: string) => string) | undefined,
): ProviderCost[] | undefined {
  if (!providerOf) return undefined;
  const by = new Map<string, { calls: number; costUsd: number; unpriced: string[]; models: string[] }>();
  for (const m of models) {
    const p = providerOf(m.model);
    const e = by.get(p) ?? { calls: 0, costUsd: 0, unpriced: [], models: [] };
    e.calls += m.calls;
    e.costUsd += m.costUsd;
    e.models.push(m.model);
    if (m.unpricedCalls > 0) e.unpriced.push(m.model);
    by.set(p, e);
  }
  if ([...by.keys()].every((p) => p === "Gemini")) return undefined;
  return [...by].map(([provider, e]) => ({ provider, ...e }));
}

/** `LLM cost by provider today: Gemini ≈ $0.0123 (12 calls), OpenAI-compatible ≈ $0.0000 (40 calls: llama3.2)`. */
export function providerCostLine(costs: readonly ProviderCost[]): string {
  return `LLM cost by provider today: ${costs
    .map(
      (c) =>
        `${c.provider} ≈ $${c.costUsd.toFixed(4)}${c.unpriced.length ? ` + unpriced (${c.unpriced.join(", ")})` : ""} (${c.calls} call${c.calls === 1 ? "" : "s"}: ${c.models.join(", ")})`,
    )
    .join(", ")}`;
}
