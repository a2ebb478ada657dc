/**
 * Which provider (and model) answers each kind of LLM call: `LLM_PLAN`, `LLM_ADDRESS`,
 * `LLM_SUMMARY`, `LLM_MEDIA` in the environment, or a persona's `# Models` section, each value
 * `gemini`, `openai`, or either with a model after a colon (`openai:qwen3:8b` — the model is
 * everything after the first colon, so Ollama's `name:tag` names work). A persona's section
 * overrides the environment for that persona; what neither names runs on the default provider:
 * Gemini when GEMINI_API_KEY is set, else the OpenAI-compatible server when OPENAI_BASE_URL is.
 */
import { ConfigError } from "./config-error";
import type { LlmPurpose } from "./llm-purposes";
import { listItems, type ValueSource } from "./persona-values";

export type LlmProvider = "gemini" | "openai";

/** The kinds of call a user routes: media covers descriptions and transcripts. */
export type RouteGroup = "plan" | "address" | "summary" | "media";

/** Where one group's calls go. */
interface LlmRoute {
  readonly provider: LlmProvider;
  /** The model; absent: the provider's model for that purpose. */
  readonly model?: string;
  /** The setting that chose it, for error lines (`LLM_PLAN`, `agents/Mira.md: field "Models"`). */
  readonly setting: string;
}

export type LlmRoutes = Readonly<Partial<Record<RouteGroup, LlmRoute>>>;

/** The environment variable of each group. */
export const ROUTE_VARIABLES: Readonly<Record<RouteGroup, string>> = {
  plan: "LLM_PLAN",
  address: "LLM_ADDRESS",
  summary: "LLM_SUMMARY",
  media: "LLM_MEDIA",
};

/** The group a purpose belongs to. */
export const GROUP_OF: Readonly<Record<LlmPurpose, RouteGroup>> = {
  plan: "plan",
  address: "address",
  summarise: "summary",
  describe: "media",
  transcribe: "media",
};

/** `gemini`, `openai`, `gemini:<model>` or `openai:<model>`; else a problem in words. */
function readRoute(raw: string, setting: string): LlmRoute | string {
  const v = raw.trim();
  const colon = v.indexOf(":");
  const provider = (colon < 0 ? v : v.slice(0, colon)).toLowerCase();
  const model = colon < 0 ? undefined : v.slice(colon + 1).trim();
  if (provider !== "gemini" && provider !== "openai")
    return `"${v}" is not a provider: expected gemini or openai, optionally with a model after a colon (openai:qwen3:8b)`;
  if (model !== undefined && model.length === 0) return `"${v}" names no model after the colon`;
  if (model !== undefined && /\s/.test(model)) return `model "${model}" has a space in it`;
  return { provider, ...(model !== undefined ? { model } : {}), setting };
}

/** The routes the environment sets (LLM_PLAN …); a bad value is a ConfigError naming the variable. */
export function envRoutes(env: Readonly<Record<string, string | undefined>>): LlmRoutes {
  const routes: Partial<Record<RouteGroup, LlmRoute>> = {};
  for (const [group, name] of Object.entries(ROUTE_VARIABLES) as [RouteGroup, string][]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const r = readRoute(raw, name);
    if (typeof r === "string")
      throw new ConfigError({ file: "environment", field: name, problem: r, message: `${name}: ${r}` });
    routes[group] = r;
  }
  return routes;
}

const KEYS: Readonly<Record<string, RouteGroup>> = {
  plan: "plan",
  planning: "plan",
  address: "address",
  addressing: "address",
  summary: "summary",
  summaries: "summary",
  media: "media",
};

/**
 * A persona's `# Models` section: one `purpose: provider[:model]` line each, purposes
 * `planning`, `addressing`, `summaries`, `media` (or `plan`, `address`, `summary`).
 */
export function parseModels(src: ValueSource, raw: string): LlmRoutes {
  const routes: Partial<Record<RouteGroup, LlmRoute>> = {};
  for (const line of listItems(raw)) {
    const m = /^([a-z]+)\s*:\s*(.+)$/i.exec(line);
    const group = m ? KEYS[m[1]!.toLowerCase()] : undefined;
    const fail = (problem: string): never => {
      throw new ConfigError({ file: src.file, field: src.field, problem });
    };
    if (!m || group === undefined)
      fail(
        `"${line}" is not "<purpose>: <provider>[:<model>]" with purpose planning, addressing, summaries or media`,
      );
    if (routes[group!]) fail(`"${m![1]}" is set twice`);
    const r = readRoute(m![2]!, `${src.file}: field "${src.field}"`);
    if (typeof r === "string") fail(r);
    routes[group!] = r as LlmRoute;
  }
  return routes;
}
