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
import { formatMemoryEnvelope, type MemoryNote } from "../context/envelope";
import type { Speaker } from "../context/speaker";
import { estimateTokens } from "../context/tokens";
import type { Memory, MemoryStore } from "../store/memories";
import type { CuratedMemories } from "./curated";

/** Tokens the memory lines of one prompt may take (with the summary's budget, set so that bench P4 stays ≤ 1.3). */
export const MEMORY_BUDGET_TOKENS = 150;
/** Full-text matches considered per prompt. */
export const MEMORY_TOP_K = 6;
/** Newest visible memories looked at after the matches (the budget stops well before). */
const RECENT_CANDIDATES = 100;

export interface RecallInput {
  readonly store: MemoryStore;
  readonly curated: CuratedMemories;
  readonly chatId: string;
  /** User ids present in the lane's window, the targets' authors first. */
  readonly present: readonly string[];
  /** A person as the prompt names them (the speaker directory: one formatter for every reference). */
  readonly speakerOf: (userId: string) => Speaker;
  /** The text of the messages being answered (the full-text query). */
  readonly query: string;
  readonly budgetTokens?: number;
  readonly topK?: number;
}

/**
 * The memories for a prompt, most relevant first, within the budget (each costed as the line
 * the prompt renders, context/envelope.ts `formatMemoryEnvelope`).
 */
export function recall(i: RecallInput): MemoryNote[] {
  const budget = i.budgetTokens ?? MEMORY_BUDGET_TOKENS;
  const notes: MemoryNote[] = [];
  let used = 0;
  const take = (note: MemoryNote, limit = budget): boolean => {
    const cost = estimateTokens(formatMemoryEnvelope(note)) + 1; // + the newline
    if (used + cost > limit) return false;
    notes.push(note);
    used += cost;
    return true;
  };

  for (const userId of i.present) {
    for (const text of i.curated.get(userId) ?? []) take({ about: i.speakerOf(userId), date: "curated", text }, Math.floor(budget / 2));
  }
  const seen = new Set<number>();
  const note = (m: Memory): MemoryNote => ({ ...(m.subject !== undefined ? { about: i.speakerOf(m.subject) } : {}), date: m.updatedAt, text: m.content });
  for (const m of i.store.search(i.chatId, i.present, i.query, i.topK ?? MEMORY_TOP_K)) {
    seen.add(m.id);
    take(note(m));
  }
  for (const m of i.store.visible(i.chatId, i.present, RECENT_CANDIDATES)) {
    if (seen.has(m.id)) continue;
    take(note(m));
    if (budget - used < 8) break;
  }
  return notes;
}
