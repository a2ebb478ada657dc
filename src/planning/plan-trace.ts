/**
 * What a planning round asked and got, kept for its `received` task when it completes (in its own
 * table, store/plan-traces.ts, the system instruction once per distinct text) so the operator
 * console can show the exact request: the system instruction, the user turn's text (a
 * picture sent inline is named, not copied), the task kinds the answer schema allowed, and the
 * checked plan that came back. Each section is cut to TRACE_SECTION_CHARS so a row stays bounded.
 */
import type { PlanPrompt } from "./prompt";
import type { Plan } from "./planner";
import { planKinds, type PlanAbilities } from "./plan-schema";

/** Longest section kept (characters); a longer one is cut and says so. */
const TRACE_SECTION_CHARS = 32 * 1024;

/** The stored trace of one planning round. */
export interface PlanTrace {
  readonly request: {
    readonly system: string;
    /** The text of each part of the user turn(s), in order. */
    readonly parts: readonly string[];
    /** The kinds the answer schema allowed. */
    readonly kinds: readonly string[];
  };
  /** The checked plan: its tasks, the refused ones and why; `silent` when no usable plan came twice. */
  readonly plan: {
    readonly tasks: readonly unknown[];
    readonly rejected: readonly unknown[];
    readonly silent?: string;
    /** Not from a model: a dry run's or the sandbox's echo planner's (see Plan.origin). */
    readonly origin?: "dry-run" | "echo";
  };
}

function cut(s: string, max = TRACE_SECTION_CHARS): string {
  return s.length <= max ? s : `${s.slice(0, max)}… [cut: ${s.length - max} more characters]`;
}

/** The trace of a request and its plan, each section bounded. */
export function planTrace(prompt: PlanPrompt, abilities: PlanAbilities, plan: Plan): PlanTrace {
  const parts: string[] = [];
  let left = TRACE_SECTION_CHARS;
  for (const c of prompt.contents) {
    for (const p of c.parts) {
      const text =
        "text" in p
          ? p.text
          : `[inline ${p.inlineData.mimeType}, ${Math.floor((p.inlineData.data.length * 3) / 4)} bytes]`;
      if (left <= 0) {
        parts.push("… [cut: more parts]");
        break;
      }
      const kept = cut(text, left);
      parts.push(kept);
      left -= Math.min(text.length, left);
    }
    if (left <= 0) break;
  }
  const tooLong = JSON.stringify({ tasks: plan.tasks, rejected: plan.rejected }).length > TRACE_SECTION_CHARS;
  return {
    request: {
      system: cut(prompt.systemInstruction),
      parts,
      kinds: planKinds(abilities),
    },
    plan: tooLong
      ? { tasks: [], rejected: [], silent: "the plan was too long to keep here (see the log)" }
      : {
          tasks: plan.tasks,
          rejected: plan.rejected,
          ...(plan.silent !== undefined ? { silent: plan.silent } : {}),
          ...(plan.origin !== undefined ? { origin: plan.origin } : {}),
        },
  };
}

/** The trace as stored beside its system instruction (which is stored once per distinct text). */
export function withoutSystem(t: PlanTrace): {
  request: Omit<PlanTrace["request"], "system">;
  plan: PlanTrace["plan"];
} {
  const { system: _system, ...request } = t.request;
  return { request, plan: t.plan };
}
