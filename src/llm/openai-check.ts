/**
 * The check at start of an OpenAI-compatible server (`GET /models`): a bad setting is ONE line
 * naming it and what to do — not a crash loop, not a stream of failed plans later. What it finds:
 *
 * - nothing answers at OPENAI_BASE_URL (refused, DNS, a timeout) → name the URL;
 * - the key is refused (401/403) → name OPENAI_API_KEY;
 * - a routed model is not in the server's list → name the setting that chose it and what it has.
 *
 * A server without `/models` (404, 405, 501) is not an error: the models are then found out by the
 * first call (a missing one is logged naming OPENAI_MODEL).
 */
import { APIConnectionError, APIError } from "openai";
import type { OpenAiClient } from "./openai-client";
import { causeCode } from "./openai-errors";
import type { RoutePlan } from "./providers";

/** The one line of a bad configuration, or undefined when the server is fine. */
export async function checkOpenAi(
  client: OpenAiClient,
  plans: readonly RoutePlan[],
  o: { timeoutMs?: number } = {},
): Promise<string | undefined> {
  let listed: string[];
  try {
    listed = await client.listModels(o.timeoutMs ?? 10_000);
  } catch (e) {
    if (e instanceof APIConnectionError) {
      const code = ` (${causeCode(e) ?? e.message})`;
      return `OPENAI_BASE_URL: nothing answers at ${client.baseUrl}${code}; start the model server (ollama serve, llama-server, vLLM, LM Studio) or fix the URL`;
    }
    if (e instanceof APIError && (e.status === 401 || e.status === 403))
      return `OPENAI_API_KEY: ${client.baseUrl} refused the key (HTTP ${e.status}); set the key this server expects`;
    if (e instanceof APIError && typeof e.status === "number" && [404, 405, 501].includes(e.status))
      return undefined;
    if (e instanceof APIError && typeof e.status === "number")
      return `OPENAI_BASE_URL: ${client.baseUrl} answered HTTP ${e.status} to GET /models; is it an OpenAI-compatible API root (ending in /v1)?`;
    throw e;
  }
  const have = new Set(listed);
  for (const plan of plans)
    for (const r of Object.values(plan.routes)) {
      if (r === "off" || r.provider !== "openai" || have.has(r.model)) continue;
      // Ollama lists `name:latest` for a model asked for as `name`.
      if (have.has(`${r.model}:latest`)) continue;
      const shown = listed.slice(0, 8).join(", ") + (listed.length > 8 ? ", …" : "");
      return `${r.setting}: the server at ${client.baseUrl} has no model "${r.model}" (it has: ${shown || "none"}); pull or load it, or name one it has`;
    }
  return undefined;
}
