/** `npm run eval`: the scorecard — labelled scenes through the real pipeline on the configured model, and the recall scenes. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { readEnv } from "../src/config/env";
import { loadPersonas } from "../src/config/persona";
import { createEmbedder, embedRoute } from "../src/llm/embedding-route";
import { GeminiEmbedder } from "../src/llm/gemini-embedder";
import { loadPriceTable } from "../src/llm/prices";
import { createLlm, hasLlm, withLocalPrices } from "../src/llm/providers";
import { checkOpenAi } from "../src/llm/openai-check";
import { createLogger } from "../src/runtime/logger";
import { runEval, sceneLine, totalsText, type EvalResult } from "../src/eval/eval";
import {
  FAKE_VECTORS,
  recallQuestionLine,
  recallText,
  runRecall,
  type RecallResult,
} from "../src/eval/recall";
import { RECALL_QUESTIONS } from "../src/eval/recall-set";
import { SCENES } from "../src/eval/scenes";
import { GeminiFake } from "../test/support/gemini-fake";

const USAGE = `Usage: npm run eval [-- --agent <Name>] [--scene <id>] [--fake-vectors] [--json]

Plays ${SCENES.length} short labelled scenes (group and DM) through the real pipeline on the Telegram
emulator with the configured model — Gemini (GEMINI_API_KEY) or an OpenAI-compatible server
(OPENAI_BASE_URL, OPENAI_MODEL) — and prints per scene what she did and whether it met the label,
then the totals (docs/eval.md). Each run costs what its calls cost.

Then the ${RECALL_QUESTIONS.length} recall scenes (ids recall-…; they need no chat model): paraphrased
questions among a few hundred memories, recall@5 by words alone and hybrid (words and meaning),
through the recall path planning uses. The vectors come from the embedding provider as \`npm start\`
would choose it (LLM_EMBED, else Gemini with GEMINI_API_KEY; an OpenAI-compatible server with
LLM_EMBED=openai:<embedding model>); with none, from a loopback fake's deterministic vectors
(${FAKE_VECTORS}).

Options:
  --agent <Name>   the persona (default: the first file in agents/)
  --scene <id>     only the scenes whose id starts with this (--scene recall- : the recall scenes alone)
  --fake-vectors   the recall scenes on the loopback fake's vectors even when a provider is configured
  --json           one JSON document instead of the table
  -h, --help       this text`;

runScript(
  "eval",
  USAGE,
  {
    agent: { type: "string" },
    scene: { type: "string" },
    json: { type: "boolean" },
    "fake-vectors": { type: "boolean" },
  },
  async (flags) => {
    loadDotEnv();
    const env = readEnv();
    const scenes = flags.scene ? SCENES.filter((s) => s.id.startsWith(flags.scene!)) : SCENES;
    const questions = flags.scene
      ? RECALL_QUESTIONS.filter((q) => q.id.startsWith(flags.scene!))
      : RECALL_QUESTIONS;
    if (flags["fake-vectors"] && questions.length === 0) {
      process.stderr.write(
        `eval: --fake-vectors is for the recall scenes, and --scene "${flags.scene}" names none\n`,
      );
      return 2;
    }
    if (scenes.length === 0 && questions.length === 0) {
      process.stderr.write(`eval: no scene id starts with "${flags.scene}"\n`);
      return 1;
    }
    if (scenes.length > 0 && !hasLlm(env)) {
      process.stderr.write(
        "eval: no model configured: set GEMINI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL (docs/models.md); --scene recall- needs none\n",
      );
      return 1;
    }
    const personas = loadPersonas(env.AGENTS_DIR);
    const persona = flags.agent
      ? personas.find((p) => p.name.toLowerCase() === flags.agent!.toLowerCase())
      : personas[0];
    if (!persona) {
      process.stderr.write(`eval: no persona ${flags.agent ?? ""} in ${env.AGENTS_DIR}/\n`);
      return 1;
    }
    const logger = createLogger({ level: "error" });
    const out: { chat?: EvalResult; recall?: RecallResult; recallError?: string } = {};
    // The recall scenes' embedder is chosen first: a setting it cannot use fails before the chat
    // scenes spend their tokens. The provider `npm start` would embed this persona's memories
    // with, unless the fake is asked for.
    const route =
      questions.length === 0
        ? undefined
        : flags["fake-vectors"]
          ? { provider: "off" as const }
          : embedRoute(env, persona.models);
    if (route && route.provider === "off" && "notice" in route && route.notice)
      process.stderr.write(`eval: ${route.notice}\n`);
    const configured = route && route.provider !== "off" ? createEmbedder(env, logger, route)! : undefined;
    if (scenes.length > 0) {
      const { llm, plan, openai } = createLlm({ env, persona: persona.models, logger });
      for (const notice of plan.notices) process.stderr.write(`eval: ${notice}\n`);
      const problem = openai ? await checkOpenAi(openai, [plan]) : undefined;
      if (problem !== undefined) {
        process.stderr.write(`eval: ${problem}\n`);
        return 1;
      }
      const prices = withLocalPrices(loadPriceTable(env.LLM_PRICES), [plan], env.OPENAI_BASE_URL);
      out.chat = await runEval({
        persona,
        llm,
        logger,
        prices,
        scenes,
        ...(flags.json ? {} : { progress: (v) => process.stdout.write(`${sceneLine(v)}\n`) }),
      });
    }
    if (route) {
      const fake = configured ? undefined : await GeminiFake.start();
      try {
        const embedder =
          configured ??
          new GeminiEmbedder({
            apiKey: "fake",
            model: "fake-embed",
            dimensions: 256,
            baseUrl: fake!.baseUrl,
            logger,
          });
        if (!flags.json)
          process.stdout.write(`\nrecall scenes on ${fake ? FAKE_VECTORS : `${embedder.key}'s vectors`}\n`);
        out.recall = await runRecall({
          embedder,
          fake: fake !== undefined,
          logger,
          questions,
          ...(flags.json ? {} : { progress: (v) => process.stdout.write(`${recallQuestionLine(v)}\n`) }),
        });
      } catch (e) {
        // The chat scenes' results (paid for) are still printed.
        out.recallError = e instanceof Error ? e.message : String(e);
      } finally {
        await fake?.close();
      }
    }
    if (flags.json) {
      const doc = {
        ...(out.chat ?? {}),
        recall: out.recall ?? (out.recallError !== undefined ? { error: out.recallError } : null),
      };
      process.stdout.write(`${JSON.stringify(doc, (_k, v: unknown) => (v === undefined ? null : v), 2)}\n`);
    } else {
      const parts = [
        out.chat ? totalsText(out.chat) : undefined,
        out.recall ? recallText(out.recall) : undefined,
        out.recallError !== undefined ? `recall scenes failed: ${out.recallError}` : undefined,
      ];
      process.stdout.write(`\n${parts.filter((p) => p !== undefined).join("\n")}\n`);
    }
    if (out.recallError !== undefined) {
      process.stderr.write(`eval: recall scenes failed: ${out.recallError}\n`);
      return 1;
    }
    return 0;
  },
);
