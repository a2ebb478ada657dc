/** What went wrong, in the error's own words: its message, or the thrown value as text. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
