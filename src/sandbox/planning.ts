/**
 * What the sandbox plans with: Gemini when GEMINI_API_KEY is set; without it a dry run, which
 * prints the exact request body that would be sent and answers nothing. `--verbose` wraps the
 * planner to show the envelopes going in and the plan coming back.
 */
import type { Logger } from "pino";
import { modelsByPurpose, type Env } from "../config/env";
import { createGeminiLlm, DryLlm, type Llm } from "../llm/llm";
import { DryPlanner, GeminiPlanner, type Planner } from "../planning/planner";

/** The persona's LLM and planner for this run; `dry` without a key. */
export function sandboxModels(
  env: Env,
  logger: Logger,
  print: (s: string) => void,
): { readonly llm: Llm; readonly planner: Planner; readonly dry: boolean } {
  const llm: Llm = env.GEMINI_API_KEY
    ? createGeminiLlm({
        apiKey: env.GEMINI_API_KEY,
        model: env.GEMINI_MODEL,
        baseUrl: env.GOOGLE_GEMINI_BASE_URL,
        models: modelsByPurpose(env),
        logger,
      })
    : new DryLlm(
        (purpose, body) =>
          print(
            `--- dry run (no GEMINI_API_KEY): ${purpose} request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`,
          ),
        env.GEMINI_MODEL,
      );
  const planner: Planner = env.GEMINI_API_KEY
    ? new GeminiPlanner({ llm, logger })
    : new DryPlanner((body) =>
        print(
          `--- dry run (no GEMINI_API_KEY): request body that would be sent ---\n${JSON.stringify(body, null, 2)}\n---`,
        ),
      );
  return { llm, planner, dry: !env.GEMINI_API_KEY };
}

/** --verbose: show the envelopes going to the planner and the plan coming back. */
export function verbosePlanner(
  inner: Planner,
  print: (s: string) => void,
  chatName: (chatId: string) => string,
  dry: boolean,
): Planner {
  return {
    async plan(prompt, check, meta) {
      const last = prompt.contents[prompt.contents.length - 1];
      const turns = prompt.contents.length === 1 ? "1 turn" : `${prompt.contents.length} turns`;
      print(
        `[planner] ${chatName(meta.chatId)}, ${turns}; last turn:\n${(last?.parts ?? []).map((p) => `  ${"text" in p ? p.text.replace(/\n/g, "\n  ") : `[${p.inlineData.mimeType}, ${p.inlineData.data.length} base64 characters]`}`).join("\n")}`,
      );
      const plan = await inner.plan(prompt, check, meta);
      if (dry) print("[planner] dry run: no plan");
      else
        print(
          `[planner] plan: ${JSON.stringify(plan.tasks.map(({ deps: _deps, ...t }) => t))}${plan.rejected.length ? ` rejected: ${JSON.stringify(plan.rejected)}` : ""}`,
        );
      return plan;
    },
  };
}
