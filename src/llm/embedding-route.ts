/**
 * Which provider embeds memories (docs/memory.md "Recall by meaning"): `LLM_EMBED` — `off`,
 * `gemini` or `gemini:<model>` (default gemini-embedding-001), `openai:<model>` (the
 * OpenAI-compatible server at OPENAI_BASE_URL: an embedding model such as nomic-embed-text; a chat
 * model does not embed well, so the model is named) — and `EMBED_DIMENSIONS`. Unset: the
 * provider that plans (the persona's `# Models`, else `LLM_PLAN`, else the default provider) —
 * memories (a DM's secrets among them) go nowhere planning does not already go. Gemini when it
 * plans; when the OpenAI-compatible server plans, off (said at start, with how to turn it on), as
 * nobody named its embedding model — a Gemini key kept for media or look-ups never sends memories
 * to Google unasked. A route to a provider that is not set up is a ConfigError naming the setting.
 */
import type { Logger } from "pino";
import { ConfigError } from "../config/config-error";
import type { Env } from "../config/env";
import { envRoutes, type LlmRoutes } from "../config/llm-routes";
import type { Embedder } from "./embedder";
import { DEFAULT_GEMINI_EMBED_MODEL, GeminiEmbedder } from "./gemini-embedder";
import { OpenAiEmbedder } from "./openai-embedder";
import type { PriceTable } from "./prices";
import { isLocalUrl } from "./providers";

/**
 * Gemini's embeddings' size when EMBED_DIMENSIONS is not set. gemini-embedding-001 is trained to
 * be cut short (768, 1536, 3072 recommended); 256 keeps a memory's vector at 1 KB and the
 * brute-force comparison of 10k memories at a few ms (bench `recallLatency`: 768 costs about 4×).
 */
const DEFAULT_GEMINI_DIMENSIONS = 256;

type EmbedEnv = Pick<
  Env,
  | "LLM_EMBED"
  | "EMBED_DIMENSIONS"
  | "GEMINI_API_KEY"
  | "GOOGLE_GEMINI_BASE_URL"
  | "OPENAI_BASE_URL"
  | "OPENAI_API_KEY"
  | "LLM_PLAN"
>;

/** Where embeddings go, or off with the reason said at start. */
export type EmbedRoute =
  | { readonly provider: "gemini" | "openai"; readonly model: string; readonly dimensions?: number }
  | { readonly provider: "off"; readonly notice?: string };

/** `persona`: the persona's `# Models` (its planning route decides the default). */
export function embedRoute(env: EmbedEnv, persona: LlmRoutes = {}): EmbedRoute {
  const raw = env.LLM_EMBED?.trim();
  const problem = (p: string): never => {
    throw new ConfigError({
      file: "environment",
      field: "LLM_EMBED",
      problem: p,
      message: `LLM_EMBED: ${p}`,
    });
  };
  if (raw === undefined || raw === "") {
    const plans =
      (persona.plan ?? envRoutes({ LLM_PLAN: env.LLM_PLAN }).plan)?.provider ??
      (env.GEMINI_API_KEY !== undefined
        ? "gemini"
        : env.OPENAI_BASE_URL !== undefined
          ? "openai"
          : undefined);
    if (plans === "gemini" && env.GEMINI_API_KEY !== undefined)
      return {
        provider: "gemini",
        model: DEFAULT_GEMINI_EMBED_MODEL,
        dimensions: env.EMBED_DIMENSIONS ?? DEFAULT_GEMINI_DIMENSIONS,
      };
    if (plans === "openai" && env.OPENAI_BASE_URL !== undefined)
      return {
        provider: "off",
        notice:
          "memories are recalled by their words only: planning runs on the OpenAI-compatible server, which embeds only with a named model; " +
          "set LLM_EMBED=openai:<embedding model> (e.g. openai:nomic-embed-text) to recall them by meaning too" +
          (env.GEMINI_API_KEY !== undefined ? " (LLM_EMBED=gemini would send them to Gemini)" : ""),
      };
    return { provider: "off" };
  }
  if (raw.toLowerCase() === "off") return { provider: "off" };
  const colon = raw.indexOf(":");
  const provider = (colon < 0 ? raw : raw.slice(0, colon)).toLowerCase();
  const model = colon < 0 ? undefined : raw.slice(colon + 1).trim();
  if (model !== undefined && (model === "" || /\s/.test(model)))
    problem(`"${raw}" names no model after the colon (or one with a space)`);
  if (provider === "gemini") {
    if (env.GEMINI_API_KEY === undefined)
      problem("routes embeddings to gemini, but GEMINI_API_KEY is not set");
    return {
      provider,
      model: model ?? DEFAULT_GEMINI_EMBED_MODEL,
      dimensions: env.EMBED_DIMENSIONS ?? DEFAULT_GEMINI_DIMENSIONS,
    };
  }
  if (provider === "openai") {
    if (env.OPENAI_BASE_URL === undefined)
      problem("routes embeddings to openai, but OPENAI_BASE_URL is not set");
    if (model === undefined)
      problem(`"openai" needs the embedding model after a colon (openai:nomic-embed-text)`);
    return {
      provider,
      model: model!,
      ...(env.EMBED_DIMENSIONS !== undefined ? { dimensions: env.EMBED_DIMENSIONS } : {}),
    };
  }
  return problem(`"${raw}" is not off, gemini[:model] or openai:<model>`);
}

/** The price table with a local server's embedding model at 0 (unless the table names it), like its chat models (providers.ts). */
export function withLocalEmbedPrice(
  table: PriceTable,
  route: EmbedRoute,
  baseUrl: string | undefined,
): PriceTable {
  if (route.provider !== "openai" || baseUrl === undefined || !isLocalUrl(baseUrl) || table[route.model])
    return table;
  return Object.freeze({ ...table, [route.model]: { input: 0, output: 0 } });
}

/** The persona's embedder for a route, or undefined when embeddings are off. */
export function createEmbedder(env: EmbedEnv, logger: Logger, route = embedRoute(env)): Embedder | undefined {
  if (route.provider === "gemini")
    return new GeminiEmbedder({
      apiKey: env.GEMINI_API_KEY!,
      model: route.model,
      dimensions: route.dimensions ?? DEFAULT_GEMINI_DIMENSIONS,
      baseUrl: env.GOOGLE_GEMINI_BASE_URL,
      logger,
    });
  if (route.provider === "openai")
    return new OpenAiEmbedder({
      baseUrl: env.OPENAI_BASE_URL!,
      apiKey: env.OPENAI_API_KEY ?? "none",
      model: route.model,
      ...(route.dimensions !== undefined ? { dimensions: route.dimensions } : {}),
      logger,
    });
  return undefined;
}
