/**
 * When two memories say the same thing. The measure is on sets of content words (NFKC,
 * lower-cased, letters and digits of any script; punctuation, order and common English function
 * words ignored):
 *
 *  - one set contains the other (the smaller with at least 2 words): the same fact with more
 *    detail ("Bob has a dog" / "Bob has a dog called Rex"); the fuller wording is kept, so
 *    nothing is lost;
 *  - or Jaccard similarity |A ∩ B| / |A ∪ B| ≥ 0.75: the same fact reworded a little
 *    ("Alice likes green tea" / "Alice really likes green tea!"); the wording with more words is
 *    kept, the newer on a tie — so a small change to a long memory acts as its update.
 *
 * Cheap, deterministic and explainable. It does not catch paraphrases in other words ("Alice is
 * vegetarian" / "Alice eats no meat"): those stay two memories.
 */
const JACCARD_THRESHOLD = 0.75;
/** A contained word set counts as a duplicate from this size. */
const MIN_CONTAINED_WORDS = 2;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}'’_-]*/gu;

/** Common English words: they say nothing about which fact a memory holds (also left out of searches). */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but nor of in on at by to for from with into onto over under about as is am are was were be been being " +
    "has have had do does did can could would should will shall may might must it its it's this that these those " +
    "i me my you your he him his she her we us our they them their there here what which who whom whose when where why how " +
    "not no so too very just also only than then some any all again once own same off per via yes yeah ok"
  ).split(" "),
);

/** The words of a text as a set: NFKC, lower-cased, trailing apostrophes and hyphens dropped. */
export function wordSet(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.normalize("NFKC").toLowerCase().matchAll(WORD)) out.add(m[0].replace(/['’_-]+$/u, ""));
  return out;
}

/** The content words of a text: its word set without the stop words. */
export function contentWords(text: string): Set<string> {
  const out = wordSet(text);
  for (const w of out) if (STOP_WORDS.has(w)) out.delete(w);
  return out;
}

/** True when two memories' content-word sets are near-duplicates (see above). */
export function isNearDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size === 0 || b.size === 0) return false;
  let common = 0;
  for (const w of a) if (b.has(w)) common++;
  const smaller = Math.min(a.size, b.size);
  if (common === smaller && smaller >= MIN_CONTAINED_WORDS) return true;
  return common / (a.size + b.size - common) >= JACCARD_THRESHOLD;
}
