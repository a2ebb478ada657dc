/**
 * Hybrid ranking of a prompt's memory matches (recall.ts step 3): the full-text matches (FTS5,
 * bm25) and the nearest memories by meaning (store/memory-vectors.ts) fused by reciprocal rank
 * fusion — each list gives a memory 1 / (K + rank) — with two lighter signals: recency (the
 * candidates ranked by last update, at a lower weight) and the people in view (a memory about
 * someone present gets as much as the newest candidate). Both lists are
 * already limited to what the chat may show (the scope is in their queries), so fusing never
 * widens a scope. The number of lines stays bounded by `limit` (and the prompt's token budget).
 */
import type { Memory } from "../store/memories";
import type { NearMemory } from "../store/memory-vectors";

/** Candidates each list brings to the fusion. */
export const HYBRID_CANDIDATES = 12;
/**
 * Reciprocal rank fusion's constant. The usual 60 is for long lists; with a dozen candidates
 * each it would make every rank of one list worth nearly the same, and recency would decide.
 */
const K = 20;
/** Recency counts less than a ranked list: it moves a memory by a rank or two. */
const RECENCY_WEIGHT = 0.3;
/** A memory about someone in view: as much as the newest is worth. */
const PRESENT_BONUS = RECENCY_WEIGHT / (K + 1);
/**
 * Neighbours farther than this (cosine distance; 1: unrelated) are not matches at all, and those
 * farther than the nearest by more than {@link RELATIVE_MARGIN}: embedding models put unrelated
 * texts at different distances, so the nearest one sets the bar.
 */
const MAX_DISTANCE = 0.8;
const RELATIVE_MARGIN = 0.2;

/** The neighbours that are matches: near enough, absolutely and next to the nearest. */
export function nearEnough(near: readonly NearMemory[]): Memory[] {
  const best = near[0]?.distance;
  if (best === undefined) return [];
  return near
    .filter((n) => n.distance <= MAX_DISTANCE && n.distance <= best + RELATIVE_MARGIN)
    .map((n) => n.memory);
}

/** The fused ranking, best first, at most `limit`. */
export function fuse(o: {
  readonly words: readonly Memory[];
  readonly meaning: readonly Memory[];
  readonly present: readonly string[];
  readonly limit: number;
}): Memory[] {
  const score = new Map<number, number>();
  const byId = new Map<number, Memory>();
  const add = (list: readonly Memory[], weight: number) =>
    list.forEach((m, rank) => {
      byId.set(m.id, m);
      score.set(m.id, (score.get(m.id) ?? 0) + weight / (K + rank + 1));
    });
  add(o.words, 1);
  add(o.meaning, 1);
  const candidates = [...byId.values()];
  add(
    [...candidates].sort((a, b) => b.updatedAt - a.updatedAt || b.id - a.id),
    RECENCY_WEIGHT,
  );
  const present = new Set(o.present);
  for (const m of candidates)
    if (m.subject !== undefined && present.has(m.subject)) score.set(m.id, score.get(m.id)! + PRESENT_BONUS);
  return candidates
    .sort((a, b) => score.get(b.id)! - score.get(a.id)! || b.updatedAt - a.updatedAt)
    .slice(0, o.limit);
}
