import { z } from "zod";

/** The model used when GEMINI_MODEL is not set. */
export const DEFAULT_GEMINI_MODEL = "gemini-2.5-flash";

const schema = z.object({
  GEMINI_API_KEY: z.string().min(1).optional(),
  GEMINI_MODEL: z.string().min(1).default(DEFAULT_GEMINI_MODEL),
  /** Read by the SDK itself; we only pass it through explicitly for clarity. */
  GOOGLE_GEMINI_BASE_URL: z.string().url().optional(),
  TELEGRAM_API_ID: z.coerce.number().int().positive().optional(),
  TELEGRAM_API_HASH: z.string().regex(/^[0-9a-f]{32}$/i, "must be 32 hex characters").optional(),
  STATE_DB: z.string().min(1).default("state/agents.db"),
  AGENTS_DIR: z.string().min(1).default("agents"),
  SESSIONS_DIR: z.string().min(1).default("sessions"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

/** Typed, validated environment. */
export type Env = z.infer<typeof schema>;

/**
 * Read the environment. An invalid value fails with a message naming the variable — but never
 * echoing its value, since some of these are secrets.
 */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const res = schema.safeParse(cleaned);
  if (!res.success) {
    const lines = res.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid environment:\n${lines.join("\n")}`);
  }
  return res.data;
}
