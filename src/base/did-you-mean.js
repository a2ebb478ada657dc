/**
 * "Did you mean …?" for a misspelt name (a persona heading, a command-line flag): the closest
 * candidate by edit distance (optimal string alignment: insert, delete, substitute, and swapping
 * two neighbouring letters — `--agnet` is one edit from `--agent`; case-insensitive), when it is
 * close enough to be a typo — at most a third of the word's length, and at most 3 edits.
 *
 * Plain JavaScript (typed by did-you-mean.d.ts) because scripts/build.mjs runs it before anything
 * is compiled: every script's flags are parsed by the same code (src/cli/command-line.js).
 */

/**
 * Edits between two strings.
 * @param {string} a
 * @param {string} b
 * @returns {number}
 */
function editDistance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.length][b.length];
}

/**
 * The candidate `word` was most likely meant to be, or undefined when none is close.
 * @param {string} word
 * @param {readonly string[]} candidates
 * @returns {string | undefined}
 */
export function closest(word, candidates) {
  const w = word.toLowerCase();
  let best;
  for (const c of candidates) {
    const d = editDistance(w, c.toLowerCase());
    if (best === undefined || d < best.d) best = { c, d };
  }
  if (best === undefined || best.d === 0) return best?.c;
  return best.d <= Math.min(3, Math.max(1, Math.floor(w.length / 3))) ? best.c : undefined;
}
