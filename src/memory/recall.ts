/**
 * Which memories go into a prompt, within a token budget (counted with the one estimator,
 * context/tokens.ts). In order of priority:
 *
 *  1. curated memories of the people present (the targets' authors first), at most half the budget;
 *  2. the top-k full-text (FTS5, bm25) matches for the words of the messages being answered;
 *  3. the newest other memories about the people present and notes about this chat.
 *
 * "Present" = the authors of the messages in the lane's window. Every candidate is visible in
 * this chat: stored here, or about someone present — a memory about a person who is absent is
 * never shown unless it was stored in this chat (the SQL enforces it, see store/memories.ts).
 */
import { sanitizeLine } from "../context/sanitize";
import { estimateTokens } from "../context/tokens";
import type { Memory, MemoryStore } from "../store/memories";
import type { CuratedMemories } from "./curated";

/** Tokens the memory lines of one prompt may take. */
export const MEMORY_BUDGET_TOKENS = 200;
/** Full-text matches considered per prompt. */
export const MEMORY_TOP_K = 6;
/** Newest visible memories looked at after the matches (the budget stops well before). */
const RECENT_CANDIDATES = 100;
/** One memory line is cut to this many code points. */
const MAX_LINE_CODE_POINTS = 300;

export interface RecallInput {
  readonly store: MemoryStore;
  readonly curated: CuratedMemories;
  readonly chatId: string;
  /** User ids present in the lane's window, the targets' authors first. */
  readonly present: readonly string[];
  /** A present person's name, for the line's label. */
  readonly nameOf: (userId: string) => string | undefined;
  /** The text of the messages being answered (the full-text query). */
  readonly query: string;
  readonly budgetTokens?: number;
  readonly topK?: number;
}

/** The memory lines for a prompt, most relevant first, within the budget. */
export function recall(i: RecallInput): string[] {
  const budget = i.budgetTokens ?? MEMORY_BUDGET_TOKENS;
  const lines: string[] = [];
  let used = 0;
  const take = (line: string, limit = budget): boolean => {
    const cost = estimateTokens(line) + 1; // + the newline
    if (used + cost > limit) return false;
    lines.push(line);
    used += cost;
    return true;
  };
  const label = (userId: string) => sanitizeLine(i.nameOf(userId) ?? `user ${userId}`);

  for (const userId of i.present) {
    for (const text of i.curated.get(userId) ?? []) take(`- [${label(userId)} · curated] ${cut(text)}`, Math.floor(budget / 2));
  }
  const seen = new Set<number>();
  const render = (m: Memory): string => {
    const who = m.subject !== undefined ? label(m.subject) : "this chat";
    return `- [${who} · ${day(m.updatedAt)}] ${cut(m.content)}`;
  };
  for (const m of i.store.search(i.chatId, i.present, i.query, i.topK ?? MEMORY_TOP_K)) {
    seen.add(m.id);
    take(render(m));
  }
  for (const m of i.store.visible(i.chatId, i.present, RECENT_CANDIDATES)) {
    if (seen.has(m.id)) continue;
    take(render(m));
    if (budget - used < 8) break;
  }
  return lines;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function cut(text: string): string {
  const s = sanitizeLine(text);
  const cps = Array.from(s);
  return cps.length <= MAX_LINE_CODE_POINTS ? s : `${cps.slice(0, MAX_LINE_CODE_POINTS).join("")}...`;
}
