/**
 * The persona's LLM as configured: each purpose on its provider and model (config/llm-routes.ts),
 * behind the one `Llm` interface the rest of the persona speaks. Gemini and an OpenAI-compatible
 * server may both run — say addressing on a small local model and planning on Gemini — sharing
 * one outage state (availability.ts: keyed by model, so `/status` and the metrics see both).
 *
 * What a provider cannot do here is settled at start and said in a line, never found out by a
 * silent failure: an OpenAI-compatible model takes text and images only, so voice-note
 * transcripts (audio) and descriptions of videos, GIFs and video notes go to Gemini when a key is
 * set, and are off (not transcribed, not described) when not. Search tools are Gemini's only.
 *
 * This is the seam later providers' work builds on (embeddings, speech): a purpose is routed here,
 * a provider is a client plus an `Llm` beside GeminiLlm.
 */
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import { ConfigError } from "../config/config-error";
import type { Env } from "../config/env";
import { modelsByPurpose } from "../config/env";
import type { LlmPurpose } from "../config/llm-purposes";
import { envRoutes, GROUP_OF, ROUTE_VARIABLES, type LlmProvider, type LlmRoutes } from "../config/llm-routes";
import { LlmAvailability } from "./availability";
import { createGeminiLlm, type JsonOutcome, type JsonRequest, type Llm } from "./llm";
import { OpenAiClient, openAiTakes } from "./openai-client";
import { OPENAI_VENDOR } from "./openai-errors";
import { OpenAiLlm } from "./openai-llm";
import type { PriceTable } from "./prices";
import type { LlmUsage } from "./types";

const ALL_PURPOSES: readonly LlmPurpose[] = ["plan", "address", "summarise", "describe", "transcribe"];

/** Where one purpose's calls go. */
interface ResolvedRoute {
  readonly provider: LlmProvider;
  readonly model: string;
  /** The setting that chose it (for the lines at start). */
  readonly setting: string;
}

/** Every purpose's route, what may fall back, and the lines to say at start. */
export interface RoutePlan {
  /** `off`: no provider here can do it (said in `notices`). */
  readonly routes: Readonly<Record<LlmPurpose, ResolvedRoute | "off">>;
  /** Where a media request an OpenAI-compatible model cannot take (video, GIF) goes instead. */
  readonly mediaFallback?: ResolvedRoute;
  readonly notices: readonly string[];
}

type ProviderEnv = Pick<
  Env,
  | "GEMINI_API_KEY"
  | "GEMINI_MODEL"
  | "GEMINI_ADDRESS_MODEL"
  | "GEMINI_SUMMARY_MODEL"
  | "GEMINI_MEDIA_MODEL"
  | "OPENAI_BASE_URL"
  | "OPENAI_MODEL"
  | "LLM_PLAN"
  | "LLM_ADDRESS"
  | "LLM_SUMMARY"
  | "LLM_MEDIA"
>;

/** True when some LLM is configured (a Gemini key or an OpenAI-compatible base URL). */
export function hasLlm(env: Pick<Env, "GEMINI_API_KEY" | "OPENAI_BASE_URL">): boolean {
  return env.GEMINI_API_KEY !== undefined || env.OPENAI_BASE_URL !== undefined;
}

/**
 * Each purpose's provider and model for a persona (its `# Models` over the environment's
 * `LLM_*`). Throws ConfigError naming the setting when a route names a provider that is not set up.
 */
export function planRoutes(env: ProviderEnv, persona: LlmRoutes = {}): RoutePlan {
  const fromEnv = envRoutes(env);
  const gemini = env.GEMINI_API_KEY !== undefined;
  const openai = env.OPENAI_BASE_URL !== undefined;
  const fallbackProvider: LlmProvider | undefined = gemini ? "gemini" : openai ? "openai" : undefined;
  const geminiModels = modelsByPurpose(env);
  const notices: string[] = [];
  const routes = {} as Record<LlmPurpose, ResolvedRoute | "off">;
  for (const purpose of ALL_PURPOSES) {
    const group = GROUP_OF[purpose];
    const chosen = persona[group] ?? fromEnv[group];
    const provider = chosen?.provider ?? fallbackProvider;
    const setting = chosen?.setting ?? (provider === "gemini" ? "GEMINI_API_KEY" : "OPENAI_BASE_URL");
    if (provider === undefined) {
      routes[purpose] = "off";
      continue;
    }
    if (provider === "gemini" && !gemini)
      throw new ConfigError({
        file: "environment",
        field: setting,
        problem: "routes to gemini but GEMINI_API_KEY is not set",
        message: `${setting}: routes ${group} to gemini, but GEMINI_API_KEY is not set; set it, or route ${group} to openai`,
      });
    if (provider === "openai" && !openai)
      throw new ConfigError({
        file: "environment",
        field: setting,
        problem: "routes to openai but OPENAI_BASE_URL is not set",
        message: `${setting}: routes ${group} to openai, but OPENAI_BASE_URL is not set; set it to the server's API root (e.g. http://127.0.0.1:11434/v1)`,
      });
    const model =
      chosen?.model ??
      (provider === "gemini" ? (geminiModels[purpose] ?? env.GEMINI_MODEL) : env.OPENAI_MODEL);
    if (model === undefined)
      throw new ConfigError({
        file: "environment",
        field: "OPENAI_MODEL",
        problem: "must be set",
        message: `OPENAI_MODEL: must be set to the model the server at OPENAI_BASE_URL should answer with (for ${group}; or name one in ${ROUTE_VARIABLES[group]}=openai:<model>)`,
      });
    routes[purpose] = {
      provider,
      model,
      setting: chosen?.model !== undefined ? setting : provider === "openai" ? "OPENAI_MODEL" : setting,
    };
  }
  // Audio: an OpenAI-compatible model takes none here.
  const t = routes.transcribe;
  if (t !== "off" && t.provider === "openai") {
    if (gemini) {
      routes.transcribe = {
        provider: "gemini",
        model: env.GEMINI_MEDIA_MODEL,
        setting: "GEMINI_MEDIA_MODEL",
      };
      notices.push(
        `voice notes: ${t.model} (OpenAI-compatible) takes no audio here, so voice and video notes are transcribed by Gemini ${env.GEMINI_MEDIA_MODEL}`,
      );
    } else {
      routes.transcribe = "off";
      notices.push(
        `voice notes are not transcribed: ${t.model} (OpenAI-compatible) takes no audio here and GEMINI_API_KEY is not set (set it to have them transcribed by Gemini)`,
      );
    }
  }
  const d = routes.describe;
  let mediaFallback: ResolvedRoute | undefined;
  if (d !== "off" && d.provider === "openai") {
    if (gemini) {
      mediaFallback = { provider: "gemini", model: env.GEMINI_MEDIA_MODEL, setting: "GEMINI_MEDIA_MODEL" };
      notices.push(
        `media: photos and stickers are described by ${d.model}; videos, GIFs and video notes (which it cannot take) by Gemini ${env.GEMINI_MEDIA_MODEL}`,
      );
    } else
      notices.push(
        `media: photos and stickers are described by ${d.model}; videos, GIFs and video notes are not described (an OpenAI-compatible model takes images only; set GEMINI_API_KEY to have them described)`,
      );
  }
  if (Object.values(routes).some((r) => r !== "off" && r.provider === "openai") && gemini === false)
    notices.push("web search and page reading are Gemini's tools: without GEMINI_API_KEY they are off");
  return { routes, ...(mediaFallback ? { mediaFallback } : {}), notices };
}

/** How to build the persona's LLM. */
export interface CreateLlmOptions {
  readonly env: ProviderEnv &
    Pick<Env, "GOOGLE_GEMINI_BASE_URL" | "OPENAI_API_KEY" | "OPENAI_STRUCTURED" | "GEMINI_THINKING_BUDGET">;
  readonly persona?: LlmRoutes;
  readonly logger: Logger;
  readonly now?: () => number;
  /** Client settings for tests (fast retries). */
  readonly openaiClient?: Partial<
    Pick<ConstructorParameters<typeof OpenAiClient>[0], "maxAttempts" | "sleep" | "timeoutMs">
  >;
}

/** The persona's LLM, and the OpenAI-compatible client when a purpose uses one (the check at start). */
export function createLlm(o: CreateLlmOptions): { llm: RoutedLlm; plan: RoutePlan; openai?: OpenAiClient } {
  const plan = planRoutes(o.env, o.persona);
  const vendorOf = new Map<string, LlmProvider>();
  for (const r of [...Object.values(plan.routes), plan.mediaFallback])
    if (r !== undefined && r !== "off") vendorOf.set(r.model, r.provider);
  const availability = new LlmAvailability({
    now: o.now ?? systemClock.now,
    logger: o.logger.child({ component: "llm" }),
    label: (m) => `${vendorOf.get(m) === "openai" ? OPENAI_VENDOR : "Gemini"} ${m}`,
  });
  const uses = (p: LlmProvider) =>
    [...Object.values(plan.routes), plan.mediaFallback].some(
      (r) => r !== undefined && r !== "off" && r.provider === p,
    );
  const gemini =
    uses("gemini") && o.env.GEMINI_API_KEY
      ? createGeminiLlm({
          apiKey: o.env.GEMINI_API_KEY,
          model: o.env.GEMINI_MODEL,
          baseUrl: o.env.GOOGLE_GEMINI_BASE_URL,
          ...(o.env.GEMINI_THINKING_BUDGET ? { thinking: o.env.GEMINI_THINKING_BUDGET } : {}),
          logger: o.logger,
          availability,
          ...(o.now ? { now: o.now } : {}),
        })
      : undefined;
  let openai: OpenAiClient | undefined;
  let openaiLlm: OpenAiLlm | undefined;
  if (uses("openai") && o.env.OPENAI_BASE_URL) {
    openai = new OpenAiClient({
      baseUrl: o.env.OPENAI_BASE_URL,
      apiKey: o.env.OPENAI_API_KEY ?? "none",
      model: o.env.OPENAI_MODEL ?? firstOpenAiModel(plan),
      logger: o.logger,
      availability,
      ...(o.now ? { now: o.now } : {}),
      ...o.openaiClient,
    });
    openaiLlm = new OpenAiLlm({
      client: openai,
      logger: o.logger.child({ component: "llm" }),
      ...(o.env.OPENAI_STRUCTURED ? { mode: o.env.OPENAI_STRUCTURED } : {}),
    });
  }
  const llm = new RoutedLlm(
    plan,
    { ...(gemini ? { gemini } : {}), ...(openaiLlm ? { openai: openaiLlm } : {}) },
    availability,
  );
  return { llm, plan, ...(openai ? { openai } : {}) };
}

function firstOpenAiModel(plan: RoutePlan): string {
  for (const r of Object.values(plan.routes)) if (r !== "off" && r.provider === "openai") return r.model;
  return "default";
}

/** Each purpose to its provider's `Llm`, with the model of its route. */
export class RoutedLlm implements Llm {
  constructor(
    readonly plan: RoutePlan,
    private readonly providers: Readonly<Partial<Record<LlmProvider, Llm>>>,
    readonly availability: LlmAvailability,
  ) {}

  modelFor(purpose: LlmPurpose): string {
    const r = this.plan.routes[purpose];
    return r === "off" ? "off" : r.model;
  }

  providerOf(model: string): string {
    for (const r of [...Object.values(this.plan.routes), this.plan.mediaFallback])
      if (r !== undefined && r !== "off" && r.model === model)
        return r.provider === "openai" ? OPENAI_VENDOR : "Gemini";
    return "Gemini";
  }

  /** The provider a purpose runs on (`off` when none). */
  providerFor(purpose: LlmPurpose): LlmProvider | "off" {
    const r = this.plan.routes[purpose];
    return r === "off" ? "off" : r.provider;
  }

  onUsage(listener: (u: LlmUsage) => void): () => void {
    const offs = Object.values(this.providers).map((p) => p.onUsage(listener));
    return () => offs.forEach((off) => off());
  }

  async generateJson<T>(req: JsonRequest<T>): Promise<JsonOutcome<T>> {
    let route = this.plan.routes[req.purpose];
    if (route !== "off" && route.provider === "openai") {
      const foreign = req.contents
        .flatMap((c) => c.parts)
        .find((p) => "inlineData" in p && !openAiTakes(p.inlineData.mimeType));
      if (foreign && "inlineData" in foreign) {
        if (this.plan.mediaFallback) route = this.plan.mediaFallback;
        else
          return {
            ok: false,
            kind: "empty",
            reason: `${foreign.inlineData.mimeType} cannot go to an OpenAI-compatible model and no Gemini key is set`,
            calls: 0,
          };
      }
    }
    if (route === "off")
      return {
        ok: false,
        kind: "empty",
        reason: `no configured model can do ${req.purpose} (said at start)`,
        calls: 0,
      };
    const llm = this.providers[route.provider]!;
    return llm.generateJson({ ...req, model: req.model ?? route.model });
  }
}

/** Hosts that are this machine or a private network: a model served there costs nothing per token. */
export function isLocalUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  return (
    host === "localhost" ||
    host === "::1" ||
    host.endsWith(".local") ||
    host === "host.docker.internal" ||
    /^127\./.test(host) ||
    /^10\./.test(host) ||
    /^192\.168\./.test(host) ||
    /^172\.(1[6-9]|2\d|3[01])\./.test(host)
  );
}

/**
 * The price table with the OpenAI-compatible models of a local server priced at 0 (unless the
 * table names them): a model on one's own machine has no price per token.
 */
export function withLocalPrices(
  table: PriceTable,
  plans: readonly RoutePlan[],
  baseUrl: string | undefined,
): PriceTable {
  if (baseUrl === undefined || !isLocalUrl(baseUrl)) return table;
  const extra: Record<string, { input: number; output: number }> = {};
  for (const plan of plans)
    for (const r of Object.values(plan.routes))
      if (r !== "off" && r.provider === "openai" && table[r.model] === undefined)
        extra[r.model] = { input: 0, output: 0 };
  return Object.keys(extra).length === 0 ? table : Object.freeze({ ...table, ...extra });
}
