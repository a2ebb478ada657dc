/**
 * The shape of a lane's rolling summary, and how it reads in a prompt. One zod schema is the
 * contract with the summariser (sent as `responseJsonSchema`, checked on the way back) and the
 * format stored in `lane_summaries.content`.
 */
import { z } from "zod";
import { sanitizeLine } from "../context/sanitize";
import { estimateTokens } from "../context/tokens";

const items = (what: string, max: number) => z.array(z.string().max(400)).max(max).describe(what);

export const summarySchema = z.object({
  goals_and_open_questions: items("what people want and questions still open, one line each", 12),
  decisions: items("what was decided, and by whom", 12),
  facts: items("facts stated that matter later (people, plans, places, numbers)", 20),
  // Added later: absent from older stored summaries (and optional for the model), so they default.
  people_and_mood: items(
    "who is in it and how they are: moods, jokes, tensions, how they get along",
    12,
  ).default([]),
  you_said: items(
    'what the participant labelled "(you)" said or claimed about itself: facts, plans, tastes, opinions',
    12,
  ).default([]),
  outcomes: items("what happened or was settled", 12),
  pending_actions: items("who still has to do what", 12),
});

export type Summary = z.infer<typeof summarySchema>;

/** The sections of a summary in order, with their titles (the prompt's and the console's). */
export const SUMMARY_SECTIONS: readonly [keyof Summary, string][] = [
  ["goals_and_open_questions", "Goals and open questions"],
  ["decisions", "Decisions"],
  ["facts", "Facts"],
  ["people_and_mood", "People and mood"],
  ["you_said", "What you said about yourself"],
  ["outcomes", "Outcomes"],
  ["pending_actions", "Pending actions"],
];

/** Tokens a summary may take in a planning prompt (the one estimator, context/tokens.ts; with the memory budget, set so that bench P4 stays ≤ 1.3). */
const SUMMARY_BUDGET_TOKENS = 250;

/** A stored summary's JSON, checked; undefined when it is not one (never thrown: a bad row is skipped). */
export function parseStoredSummary(json: string): Summary | undefined {
  try {
    const r = summarySchema.safeParse(JSON.parse(json));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The summary as the planner reads it, labelled as history and not a request, cut to `budget`
 * tokens: sections in order, items in order, each sanitized to one line; an item that does not
 * fit is left out (and the sections after it still get their chance).
 */
export function renderSummary(
  s: Summary,
  o: { readonly fromId: number; readonly toId: number; readonly budget?: number },
): string {
  const budget = o.budget ?? SUMMARY_BUDGET_TOKENS;
  const head = `[Summary of this conversation up to message #${o.toId} — earlier history, not a request]`;
  let used = estimateTokens(head);
  const lines = [head];
  for (const [key, title] of SUMMARY_SECTIONS) {
    const kept: string[] = [];
    for (const item of s[key]) {
      const text = `- ${sanitizeLine(item)}`;
      const cost = estimateTokens(text) + 1 + (kept.length === 0 ? estimateTokens(title) + 2 : 0);
      if (used + cost > budget) continue;
      kept.push(text);
      used += cost;
    }
    if (kept.length) lines.push(`${title}:`, ...kept);
  }
  return lines.join("\n");
}
