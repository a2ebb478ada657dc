/**
 * `npm run eval`: every scene (scenes.ts) through the real pipeline on the emulator with the
 * configured model, judged against its label (score.ts); a table per scene and the totals, or
 * `--json`. docs/eval.md explains how to read it and how to add a scene.
 */
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { Llm } from "../llm/llm";
import type { PriceTable } from "../llm/prices";
import { runScene } from "./run-scene";
import { SCENES, type Scene } from "./scenes";
import { judge, totals, type SceneVerdict, type Totals } from "./score";

export interface EvalResult {
  readonly model: string;
  readonly scenes: readonly SceneVerdict[];
  readonly totals: Totals;
}

export async function runEval(o: {
  readonly persona: Persona;
  readonly llm: Llm;
  readonly logger: Logger;
  readonly prices: PriceTable;
  readonly scenes?: readonly Scene[];
  /** Told before each scene (the CI test's stand-in model reads it). */
  readonly beforeScene?: (scene: Scene) => void;
  readonly progress?: (verdict: SceneVerdict) => void;
}): Promise<EvalResult> {
  // The scorecard measures the model's judgement: groups in smart mode, so the model decides whether a message is for her.
  const persona: Persona = { ...o.persona, groupMode: "smart" };
  const verdicts: SceneVerdict[] = [];
  for (const scene of o.scenes ?? SCENES) {
    o.beforeScene?.(scene);
    const run = await runScene(scene, { persona, llm: o.llm, logger: o.logger });
    const v = judge(run, o.prices, persona.name);
    verdicts.push(v);
    o.progress?.(v);
  }
  return { model: o.llm.modelFor("plan"), scenes: verdicts, totals: totals(verdicts) };
}

const pct = (x: number | undefined) => (x === undefined ? "n/a" : `${(x * 100).toFixed(0)} %`);

/** One line per scene as it finishes. */
export function sceneLine(v: SceneVerdict): string {
  return `${v.ok ? "ok  " : "FAIL"} ${v.id.padEnd(22)} ${v.where.padEnd(5)} want: ${v.label.padEnd(30)} did: ${v.happened}${v.problems.length ? `  ← ${v.problems.join("; ")}` : ""}`;
}

export function totalsText(r: EvalResult): string {
  const t = r.totals;
  return [
    `model (planning): ${r.model}`,
    `scenes met their label: ${t.passed}/${t.scenes}`,
    `speak/silent balanced accuracy: ${pct(t.balancedAccuracy)} (speak precision ${pct(t.speakPrecision)}, recall ${pct(t.speakRecall)})`,
    `answered in the chat's language: ${pct(t.languageMatch)}`,
    `DM secrets told in the group: ${t.leaks}`,
    `answers with literal Markdown or a copied header: ${t.markdown}`,
    `tokens: ${t.tokens}, cost: ${t.costUsd === undefined ? "unpriced model (see LLM_PRICES)" : `≈ $${t.costUsd.toFixed(4)}`}`,
  ].join("\n");
}
