/**
 * What an LLM call costs: a per-model price table in US dollars per million tokens, built in
 * and overridable with a JSON file (`LLM_PRICES`). Thinking tokens are billed at the output
 * price, as Google bills them. Costs are estimates: they are stored with each call, so a later
 * price change does not rewrite history.
 */
import { readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../config/config-error";
import { errorMessage } from "../base/error-message";

/** Price of one model, USD per 1,000,000 tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Prompt tokens served from Gemini's cache; default a tenth of `input` ({@link CACHED_SHARE}). */
  readonly cached?: number;
}

/** Cached prompt tokens cost this share of the input price when the table names no `cached` price (Gemini 2.5's 90 % discount). */
const CACHED_SHARE = 0.1;

/** Model id (or id prefix) → price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * Google's list prices (paid tier, prompts up to 200k tokens), November 2026. Text input;
 * `output` covers thinking tokens too.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  "gemini-2.5-pro": { input: 1.25, output: 10 },
  "gemini-2.5-flash": { input: 0.3, output: 2.5 },
  "gemini-2.5-flash-lite": { input: 0.1, output: 0.4 },
  "gemini-2.0-flash": { input: 0.1, output: 0.4 },
  "gemini-2.0-flash-lite": { input: 0.075, output: 0.3 },
  // Embeddings (memory by meaning): input only.
  "gemini-embedding-001": { input: 0.15, output: 0 },
  // Text-to-speech (her voice notes, llm/speech.ts): text in, audio tokens out (about 25 a second).
  "gemini-2.5-flash-preview-tts": { input: 0.5, output: 10 },
  "gemini-2.5-pro-preview-tts": { input: 1, output: 20 },
});

const priceSchema = z
  .object({
    input: z.number().finite().min(0),
    output: z.number().finite().min(0),
    cached: z.number().finite().min(0).optional(),
  })
  .strict();
const fileSchema = z.record(z.string().min(1), priceSchema);

/**
 * The built-in table with the entries of `file` (if given) on top: a model listed in the file
 * replaces the built-in price, others are added. The file is JSON:
 * `{"gemini-2.5-flash": {"input": 0.3, "output": 2.5}}`.
 */
export function loadPriceTable(file?: string): PriceTable {
  if (file === undefined) return DEFAULT_PRICES;
  let raw: string;
  try {
    raw = readFileSync(file, "utf8");
  } catch (e) {
    const code = e instanceof Error && "code" in e ? String(e.code) : String(e);
    // The messages lead with the setting that named the file.
    throw new ConfigError({
      file,
      problem: `cannot be read (${code})`,
      message: `LLM_PRICES: cannot read ${file} (${code})`,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (e) {
    const problem = `is not valid JSON (${errorMessage(e)})`;
    throw new ConfigError({ file, problem, message: `LLM_PRICES: ${file} ${problem}` });
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.join(".") || "(top level)"}: ${i.message}`)
      .join("; ");
    const problem = `is not a price table (${issues})`;
    const fix = `expected {"<model>": {"input": <USD per 1M tokens>, "output": <USD per 1M tokens>}}`;
    throw new ConfigError({ file, problem, fix, message: `LLM_PRICES: ${file} ${problem}; ${fix}` });
  }
  return Object.freeze({ ...DEFAULT_PRICES, ...parsed.data });
}

/**
 * The price of `model`: an exact entry, else the longest entry that is a prefix of it followed
 * by `-` (so "gemini-2.5-flash-preview-09-2025" is priced as "gemini-2.5-flash", but
 * "gemini-2.5-flash-lite" keeps its own entry). Undefined when nothing matches.
 */
export function priceFor(table: PriceTable, model: string): ModelPrice | undefined {
  const id = model.replace(/^models\//, "");
  if (table[id]) return table[id];
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (id.startsWith(`${key}-`) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : table[best];
}

/** Token counts of one call. */
export interface TokenCounts {
  readonly promptTokens: number;
  /** Of the prompt tokens, those served from the cache. */
  readonly cachedTokens?: number;
  readonly outputTokens: number;
  readonly thinkingTokens: number;
}

/** Estimated cost in USD, or undefined when the model has no price. Cached prompt tokens are billed at the cached rate. */
export function estimateCost(table: PriceTable, model: string, t: TokenCounts): number | undefined {
  const p = priceFor(table, model);
  if (!p) return undefined;
  const cached = Math.min(t.cachedTokens ?? 0, t.promptTokens);
  const cachedPrice = p.cached ?? p.input * CACHED_SHARE;
  return (
    ((t.promptTokens - cached) * p.input +
      cached * cachedPrice +
      (t.outputTokens + t.thinkingTokens) * p.output) /
    1_000_000
  );
}
