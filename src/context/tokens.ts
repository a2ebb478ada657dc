/**
 * The one token estimator of the project: prompt budgets (summaries, memories, the window) and
 * the benchmark's token figures (P4, P5) all count with it, so their ratios are comparable.
 *
 * Gemini's tokenizer is not available offline. Its published rule of thumb is about 4 characters
 * per token for English; scripts without spaces between words and emoji cost far more per
 * character. So: ASCII counts 1/4 token per character, other letters and digits (Cyrillic, Greek,
 * accented Latin…) 1/2, and CJK ideographs, kana, hangul, emoji and other symbols 1 each. It
 * over-estimates English slightly and is never used to bill anything (billing uses the server's
 * usageMetadata).
 */
const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;

/** Estimated Gemini tokens of `text` (0 for the empty string). */
export function estimateTokens(text: string): number {
  let quarter = 0; // in quarter tokens, to stay in integers
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) quarter += 1;
    else if (CJK.test(ch)) quarter += 4;
    else if (/[\p{L}\p{N}\p{M}]/u.test(ch)) quarter += 2;
    else quarter += 4;
  }
  return Math.ceil(quarter / 4);
}
