/**
 * "Did you mean …?" for a misspelt name (a persona heading, a command-line flag): the closest
 * candidate by edit distance (Levenshtein, case-insensitive), when it is close enough to be a
 * typo — at most a third of the word's length, and at most 3 edits.
 */

/** Edits (insert, delete, substitute) between two strings. */
function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/** The candidate `word` was most likely meant to be, or undefined when none is close. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (best === undefined || d < best.d) best = { c, d };
  }
  if (best === undefined || best.d === 0) return best?.c;
  return best.d <= Math.min(3, Math.max(1, Math.floor(w.length / 3))) ? best.c : undefined;
}
