/** Telegram's limit on one text message, in UTF-16 code units after entity parsing. */
const TELEGRAM_TEXT_LIMIT = 4096;

/**
 * Split text into messages of at most `limit` UTF-16 units, preferring paragraph breaks, then
 * line breaks, then sentence ends, then spaces; never inside a surrogate pair.
 */
export function splitText(text: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    let cut = lastBreak(window, /\n\s*\n/g);
    if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /\n/g));
    if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /[.!?…](?=\s)/g, 1));
    if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /\s/g));
    if (cut < limit / 4) {
      cut = limit;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // keep a surrogate pair together
    }
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length) parts.push(rest);
  return parts;
}

/** End offset (exclusive) of the last match of `re` in `s`, plus `keep` characters of it; 0 if none. */
function lastBreak(s: string, re: RegExp, keep?: number): number {
  let end = 0;
  for (const m of s.matchAll(re)) end = keep !== undefined ? m.index + keep : m.index;
  return end;
}
