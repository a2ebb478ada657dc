/**
 * At start, before anything connects: say where each persona's LLM calls go when that is not
 * plain Gemini (fallbacks, purposes that are off), and check an OpenAI-compatible server once —
 * a URL nothing answers at, a refused key or a model the server lacks stops start with one line
 * naming the setting (ConfigError), instead of failing every plan later.
 */
import type { Logger } from "pino";
import { ConfigError } from "../config/config-error";
import type { Env } from "../config/env";
import { checkOpenAi } from "../llm/openai-check";
import { OpenAiClient } from "../llm/openai-client";
import type { RoutePlan } from "../llm/providers";

export async function checkLlmSetup(
  env: Pick<Env, "OPENAI_BASE_URL" | "OPENAI_API_KEY" | "OPENAI_MODEL">,
  plans: ReadonlyMap<string, RoutePlan>,
  logger: Logger,
): Promise<void> {
  for (const [agent, plan] of plans) {
    for (const notice of plan.notices) logger.warn({ component: "llm", agent }, notice);
    const used = Object.entries(plan.routes)
      .filter(([, r]) => r !== "off")
      .map(([purpose, r]) => `${purpose} → ${r === "off" ? "" : `${r.provider}:${r.model}`}`);
    logger.info({ component: "llm", agent }, `models: ${used.join(", ")}`);
  }
  const usesOpenAi = [...plans.values()].some((p) =>
    Object.values(p.routes).some((r) => r !== "off" && r.provider === "openai"),
  );
  if (!usesOpenAi || env.OPENAI_BASE_URL === undefined) return;
  const client = new OpenAiClient({
    baseUrl: env.OPENAI_BASE_URL,
    apiKey: env.OPENAI_API_KEY ?? "none",
    model: env.OPENAI_MODEL ?? "none",
    logger,
  });
  const problem = await checkOpenAi(client, [...plans.values()]);
  if (problem !== undefined)
    throw new ConfigError({ file: "environment", field: problem.split(":")[0], problem, message: problem });
}
