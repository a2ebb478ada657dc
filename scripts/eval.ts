/** `npm run eval`: the scorecard — labelled scenes through the real pipeline on the configured model. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { readEnv } from "../src/config/env";
import { loadPersonas } from "../src/config/persona";
import { loadPriceTable } from "../src/llm/prices";
import { createLlm, hasLlm, withLocalPrices } from "../src/llm/providers";
import { checkOpenAi } from "../src/llm/openai-check";
import { createLogger } from "../src/runtime/logger";
import { runEval, sceneLine, totalsText } from "../src/eval/eval";
import { SCENES } from "../src/eval/scenes";

const USAGE = `Usage: npm run eval [-- --agent <Name>] [--scene <id>] [--json]

Plays ${SCENES.length} short labelled scenes (group and DM) through the real pipeline on the Telegram
emulator with the configured model — Gemini (GEMINI_API_KEY) or an OpenAI-compatible server
(OPENAI_BASE_URL, OPENAI_MODEL) — and prints per scene what she did and whether it met the label,
then the totals (docs/eval.md). Each run costs what its calls cost.

Options:
  --agent <Name>   the persona (default: the first file in agents/)
  --scene <id>     only the scenes whose id starts with this
  --json           one JSON document instead of the table
  -h, --help       this text`;

runScript(
  "eval",
  USAGE,
  { agent: { type: "string" }, scene: { type: "string" }, json: { type: "boolean" } },
  async (flags) => {
    loadDotEnv();
    const env = readEnv();
    if (!hasLlm(env)) {
      process.stderr.write(
        "eval: no model configured: set GEMINI_API_KEY, or OPENAI_BASE_URL and OPENAI_MODEL (docs/models.md)\n",
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
    const scenes = flags.scene ? SCENES.filter((s) => s.id.startsWith(flags.scene!)) : SCENES;
    if (scenes.length === 0) {
      process.stderr.write(`eval: no scene id starts with "${flags.scene}"\n`);
      return 1;
    }
    const logger = createLogger({ level: "error" });
    const { llm, plan, openai } = createLlm({ env, persona: persona.models, logger });
    for (const notice of plan.notices) process.stderr.write(`eval: ${notice}\n`);
    const problem = openai ? await checkOpenAi(openai, [plan]) : undefined;
    if (problem !== undefined) {
      process.stderr.write(`eval: ${problem}\n`);
      return 1;
    }
    const prices = withLocalPrices(loadPriceTable(env.LLM_PRICES), [plan], env.OPENAI_BASE_URL);
    const result = await runEval({
      persona,
      llm,
      logger,
      prices,
      scenes,
      ...(flags.json ? {} : { progress: (v) => process.stdout.write(`${sceneLine(v)}\n`) }),
    });
    process.stdout.write(
      flags.json
        ? `${JSON.stringify(result, (_k, v: unknown) => (v === undefined ? null : v), 2)}\n`
        : `\n${totalsText(result)}\n`,
    );
    return 0;
  },
);
