/**
 * What each kind of LLM call is for, and what it may cost: one table, so a new caller picks a
 * purpose instead of inventing limits. The purpose is also what usage is accounted under
 * (`llm_usage.purpose`, `/status`).
 *
 * - `plan`: the persona's answer (a JSON plan). Room for a long message plus the plan's
 *   structure; a little thinking helps it follow the plan contract.
 * - `address`: "is this group message for the persona?" (smart/talkative groups). A few dozen
 *   tokens of JSON; no thinking — it runs on the cheap model and must stay cheap.
 * - `summarise`: a lane's rolling summary. A page of structured notes; no thinking.
 * - `describe`: a one-sentence description of an image, sticker, GIF or video; no thinking.
 * - `transcribe`: a voice or video note's transcript, word for word. Speech runs ~150–200 words a
 *   minute, so a 5-minute note needs ~1,500 tokens: 2048 leaves room for the JSON around it.
 *   No thinking. Same model as `describe` unless configured otherwise.
 *
 * `thinkingBudget` 0 turns thinking off on the 2.5 flash models (2.5 pro cannot: it needs ≥ 128).
 * The plan's is 512 (it was 1,024 on every plan: a plan is a short JSON answer); each purpose's
 * budget can be set with `GEMINI_THINKING_BUDGET` ({@link parseThinkingBudgets}).
 * `maxOutputTokens` counts the answer only.
 */
export type LlmPurpose = "plan" | "address" | "summarise" | "describe" | "transcribe";

export interface PurposeSettings {
  readonly maxOutputTokens: number;
  /** Thinking tokens allowed (0 = none). */
  readonly thinkingBudget: number;
  readonly temperature: number;
}

export const PURPOSES: Readonly<Record<LlmPurpose, PurposeSettings>> = {
  plan: { maxOutputTokens: 4096, thinkingBudget: 512, temperature: 0.7 },
  address: { maxOutputTokens: 256, thinkingBudget: 0, temperature: 0 },
  summarise: { maxOutputTokens: 2048, thinkingBudget: 0, temperature: 0.2 },
  describe: { maxOutputTokens: 512, thinkingBudget: 0, temperature: 0.2 },
  transcribe: { maxOutputTokens: 2048, thinkingBudget: 0, temperature: 0 },
};

/** The cheap model used for addressing calls unless GEMINI_ADDRESS_MODEL names another. */
export const DEFAULT_ADDRESS_MODEL = "gemini-2.5-flash-lite";

/** The most thinking tokens a purpose may be given (Gemini 2.5 flash's own ceiling). */
const MAX_THINKING_BUDGET = 24_576;

/**
 * `GEMINI_THINKING_BUDGET`: thinking tokens per purpose, `plan=256,address=0` (the purposes not
 * named keep {@link PURPOSES}'). An error names the part that is wrong.
 */
export function parseThinkingBudgets(text: string): Partial<Record<LlmPurpose, number>> | string {
  const out: Partial<Record<LlmPurpose, number>> = {};
  for (const raw of text.split(",")) {
    const part = raw.trim();
    if (part === "") continue;
    const m = /^([a-z]+)\s*=\s*(\d{1,6})$/.exec(part);
    if (!m) return `bad part ${JSON.stringify(part)} (expected purpose=tokens, as plan=512)`;
    const purpose = m[1] as LlmPurpose;
    if (!(purpose in PURPOSES))
      return `unknown purpose ${JSON.stringify(m[1])} (one of ${Object.keys(PURPOSES).join(", ")})`;
    const n = Number(m[2]);
    if (n > MAX_THINKING_BUDGET) return `${purpose}=${n} is above ${MAX_THINKING_BUDGET} tokens`;
    out[purpose] = n;
  }
  return out;
}
