import { z } from "zod";
import { DEFAULT_ADDRESS_MODEL, parseThinkingBudgets, type LlmPurpose } from "./llm-purposes";
import { ConfigError } from "./config-error";
import { clientIdentity, type ClientIdentity } from "./client-identity";
import { numberProblem, readNumber, type NumberRule } from "./numbers";

/** A numeric variable, written as in the persona files (`3_600` too: numbers.ts); an error quotes it as written. */
const numeric = (rule: NumberRule) =>
  z.string().transform((v, ctx) => {
    const problem = numberProblem(v, rule);
    if (problem === undefined) return readNumber(v)!;
    ctx.addIssue({ code: "custom", message: problem });
    return z.NEVER;
  });

/** The model used when GEMINI_MODEL is not set. */
const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";

/** The cheap model of rolling lane summaries when GEMINI_SUMMARY_MODEL is not set. */
const DEFAULT_SUMMARY_MODEL = "gemini-2.5-flash-lite";

/**
 * What every command reads. The Telegram credentials are carried as given and validated only
 * by the commands that talk to Telegram (`telegramCredentials`), so a malformed
 * TELEGRAM_API_HASH never stops the offline sandbox.
 */
const schema = z.object({
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_MODEL: z.string().min(1).default(DEFAULT_GEMINI_MODEL),
  /** The cheap model of addressing calls (smart and talkative groups). */
  GEMINI_ADDRESS_MODEL: z.string().min(1).default(DEFAULT_ADDRESS_MODEL),
  /** The cheap model of rolling lane summaries (purpose "summarise"). */
  GEMINI_SUMMARY_MODEL: z.string().min(1).default(DEFAULT_SUMMARY_MODEL),
  /** The cheap multimodal model that describes photos and stickers and transcribes voice. */
  GEMINI_MEDIA_MODEL: z.string().min(1).default("gemini-2.5-flash-lite"),
  /** Thinking tokens per purpose, `plan=512,address=0` (config/llm-purposes.ts); unnamed purposes keep their default. */
  GEMINI_THINKING_BUDGET: z
    .string()
    .transform((v, ctx) => {
      const r = parseThinkingBudgets(v);
      if (typeof r !== "string") return r;
      ctx.addIssue({ code: "custom", message: r });
      return z.NEVER;
    })
    .optional(),
  /** AI media descriptions (download + call) per persona per sliding minute. */
  MEDIA_BUDGET_PER_MIN: numeric({
    min: 0,
    max: 600,
    unit: "descriptions per minute",
    integer: true,
  }).optional(),
  /** An OpenAI-compatible server's API root (`…/v1`): Ollama, llama-server, vLLM, LM Studio, OpenRouter, OpenAI (docs/models.md). */
  OPENAI_BASE_URL: z.string().url().optional(),
  /** Its key; local servers take any value. */
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** The model the server is asked for (purposes not routed elsewhere). */
  OPENAI_MODEL: z.string().min(1).optional(),
  /** Embeddings for memory by meaning (docs/memory.md): off, gemini[:model], openai:<model>; default gemini with a Gemini key. */
  LLM_EMBED: z.string().min(1).optional(),
  /** Dimensions of the embeddings (Gemini default 256; an OpenAI-compatible model: its own unless set). */
  EMBED_DIMENSIONS: numeric({ min: 8, max: 4096, unit: "dimensions", integer: true }).optional(),
  /** How answers' shape is asked for first: json_schema (default), json_object, or text. */
  OPENAI_STRUCTURED: z.enum(["json_schema", "json_object", "text"]).optional(),
  /** Which provider answers planning, addressing, summaries, media: `gemini`, `openai`, or `openai:<model>` (config/llm-routes.ts). */
  LLM_PLAN: z.string().min(1).optional(),
  LLM_ADDRESS: z.string().min(1).optional(),
  LLM_SUMMARY: z.string().min(1).optional(),
  LLM_MEDIA: z.string().min(1).optional(),
  /** Who gives her voice notes their voice: gemini (default), openai, openai:<model>, off (app/speech-setup.ts). */
  LLM_SPEECH: z.string().min(1).optional(),
  /** Gemini's text-to-speech model (default gemini-2.5-flash-preview-tts). */
  GEMINI_SPEECH_MODEL: z.string().min(1).optional(),
  /** Read by the SDK itself; we only pass it through explicitly for clarity. */
  GOOGLE_GEMINI_BASE_URL: z.string().url().optional(),
  TELEGRAM_API_ID: z.string().optional(),
  TELEGRAM_API_HASH: z.string().optional(),
  /** How the sessions introduce themselves in the account's device list (see telegram/client-identity.ts). */
  TELEGRAM_DEVICE_MODEL: z.string().max(64, "must be at most 64 characters").optional(),
  TELEGRAM_SYSTEM_VERSION: z.string().max(64, "must be at most 64 characters").optional(),
  TELEGRAM_APP_VERSION: z.string().max(64, "must be at most 64 characters").optional(),
  STATE_DB: z.string().min(1).default("state/agents.db"),
  AGENTS_DIR: z.string().min(1).default("agents"),
  SESSIONS_DIR: z.string().min(1).default("sessions"),
  /** A JSON price table overriding the built-in one (see src/llm/prices.ts). */
  LLM_PRICES: z.string().min(1).optional(),
  /** Addressed messages older than this many seconds are not answered (default 3600). */
  MAX_ANSWER_AGE_SEC: numeric({ min: 1, max: 999_999_999, unit: "seconds", integer: true }).optional(),
  /** The health and metrics listener (src/http/): off unless set; 0 picks a free port (logged). */
  HTTP_PORT: numeric({ min: 0, max: 65535, unit: "port number", integer: true }).optional(),
  /** Where the listener binds (default 127.0.0.1; anything else needs HTTP_TOKEN). */
  HTTP_HOST: z.string().min(1).default("127.0.0.1"),
  /** Bearer token every request must carry (required when HTTP_HOST is not a loopback address). */
  HTTP_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  /** The operator console on the HTTP listener (1/0; default on in the sandbox, and with HTTP_PORT for npm start, on a loopback HTTP_HOST only). */
  CONSOLE: z
    .enum(["1", "0", "true", "false", "on", "off"])
    .transform((v) => v === "1" || v === "true" || v === "on")
    .optional(),
  /** Messages older than this many days are deleted (default 90; see README "Storage"). */
  RETAIN_DAYS: numeric({ min: 1, max: 99_999, unit: "days", integer: true }).default(90),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** `json` (one JSON object per line) or `pretty` (pino-pretty); default: pretty on a terminal. */
  LOG_FORMAT: z.enum(["json", "pretty"]).optional(),
});

/** Typed, validated environment (Telegram credentials unvalidated: see `telegramCredentials`). */
export type Env = z.infer<typeof schema>;

/** The model of each LLM purpose the environment sets apart; the others run on GEMINI_MODEL. */
export function modelsByPurpose(
  env: Pick<Env, "GEMINI_ADDRESS_MODEL" | "GEMINI_SUMMARY_MODEL" | "GEMINI_MEDIA_MODEL">,
): Partial<Record<LlmPurpose, string>> {
  return {
    address: env.GEMINI_ADDRESS_MODEL,
    summarise: env.GEMINI_SUMMARY_MODEL,
    describe: env.GEMINI_MEDIA_MODEL,
    transcribe: env.GEMINI_MEDIA_MODEL,
  };
}

/**
 * Read the environment. An invalid value fails with a message naming the variable — never
 * echoing the value of a text variable, since some of these are secrets; a bad number is quoted.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  return parse(schema, source);
}

const telegramSchema = z.object({
  TELEGRAM_API_ID: z
    .string({ error: "must be set" })
    .regex(/^\d{1,12}$/, "must be a number (digits only)")
    .transform(Number)
    .pipe(z.number().positive("must be a positive number")),
  TELEGRAM_API_HASH: z.string({ error: "must be set" }).regex(/^[0-9a-f]{32}$/i, "must be 32 hex characters"),
  TELEGRAM_DEVICE_MODEL: z.string().max(64, "must be at most 64 characters").optional(),
  TELEGRAM_SYSTEM_VERSION: z.string().max(64, "must be at most 64 characters").optional(),
  TELEGRAM_APP_VERSION: z.string().max(64, "must be at most 64 characters").optional(),
});

/** What every MTProto connection needs: the app's credentials and how it introduces itself. */
export interface TelegramCredentials {
  readonly apiId: number;
  readonly apiHash: string;
  /** initConnection's device model, system and app version (the account's device list). */
  readonly identity: ClientIdentity;
}

/**
 * TELEGRAM_API_ID and TELEGRAM_API_HASH, required and validated — for the commands that talk to
 * Telegram (start with a session, login). Takes `process.env` or an `Env`.
 */
export function telegramCredentials(
  source: {
    readonly TELEGRAM_API_ID?: string | undefined;
    readonly TELEGRAM_API_HASH?: string | undefined;
    readonly TELEGRAM_DEVICE_MODEL?: string | undefined;
    readonly TELEGRAM_SYSTEM_VERSION?: string | undefined;
    readonly TELEGRAM_APP_VERSION?: string | undefined;
  } = process.env,
): TelegramCredentials {
  const t = parse(telegramSchema, {
    TELEGRAM_API_ID: source.TELEGRAM_API_ID,
    TELEGRAM_API_HASH: source.TELEGRAM_API_HASH,
    TELEGRAM_DEVICE_MODEL: source.TELEGRAM_DEVICE_MODEL,
    TELEGRAM_SYSTEM_VERSION: source.TELEGRAM_SYSTEM_VERSION,
    TELEGRAM_APP_VERSION: source.TELEGRAM_APP_VERSION,
  });
  const identity = clientIdentity({
    deviceModel: t.TELEGRAM_DEVICE_MODEL,
    systemVersion: t.TELEGRAM_SYSTEM_VERSION,
    appVersion: t.TELEGRAM_APP_VERSION,
  });
  return { apiId: t.TELEGRAM_API_ID, apiHash: t.TELEGRAM_API_HASH, identity };
}

function parse<S extends z.ZodType>(s: S, source: Record<string, string | undefined>): z.infer<S> {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const res = s.safeParse(cleaned);
  if (!res.success) {
    // Each bad variable is named, never its value (some are secrets); a bad number is quoted.
    const errors = res.error.issues.map(
      (i) => new ConfigError({ file: "environment", field: i.path.join("."), problem: i.message }),
    );
    throw new ConfigError({
      file: "environment",
      problem: `${errors.length} invalid variable(s)`,
      errors,
      message: `invalid environment:\n${errors.map((e) => `  ${e.field}: ${e.problem}`).join("\n")}`,
    });
  }
  return res.data;
}
