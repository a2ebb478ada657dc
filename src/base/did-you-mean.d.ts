/** The candidate `word` was most likely meant to be, or undefined when none is close (did-you-mean.js). */
export function closest(word: string, candidates: readonly string[]): string | undefined;
