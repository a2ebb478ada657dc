import { sliceFormatted, type FormattedText } from "../base/text-format";

/** Telegram's limit on one text message, in UTF-16 code units after entity parsing. */
const TELEGRAM_TEXT_LIMIT = 4096;

/**
 * Split text into messages of at most `limit` UTF-16 units, preferring paragraph breaks, then
 * line breaks, then sentence ends, then spaces; never inside a surrogate pair.
 */
export function splitText(text: string, limit = TELEGRAM_TEXT_LIMIT): string[] {
  return splitFormatted({ text, entities: [] }, limit).map((p) => p.text);
}

/**
 * Split a formatted text the same way, keeping its entities whole: a break inside a bold word,
 * a link or a code block is passed over for one outside it. Only an entity longer than a message
 * (a huge code block) is cut, and is then formatted in both parts.
 */
export function splitFormatted(f: FormattedText, limit = TELEGRAM_TEXT_LIMIT): FormattedText[] {
  const inside = (cut: number) => f.entities.some((e) => e.offset < cut && cut < e.offset + e.length);
  const parts: FormattedText[] = [];
  let start = skipSpace(f.text, 0, f.text.length);
  const end = trimEnd(f.text, start, f.text.length);
  while (end - start > limit) {
    const window = f.text.slice(start, start + limit);
    const ok = (at: number) => !inside(start + at);
    let cut = 0;
    for (const outside of [true, false]) {
      const allowed = outside ? ok : () => true;
      cut = lastBreak(window, /\n\s*\n/g, allowed);
      if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /\n/g, allowed));
      if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /[.!?…](?=\s)/g, allowed, 1));
      if (cut < limit / 4) cut = Math.max(cut, lastBreak(window, /\s/g, allowed));
      if (cut >= limit / 4) break;
    }
    if (cut < limit / 4) {
      cut = limit;
      const code = f.text.charCodeAt(start + cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // keep a surrogate pair together
    }
    parts.push(sliceFormatted(f, start, trimEnd(f.text, start, start + cut)));
    start = skipSpace(f.text, start + cut, end);
  }
  if (end > start) parts.push(sliceFormatted(f, start, end));
  return parts;
}

/** End offset (exclusive) of the last match of `re` in `s` where `ok`, plus `keep` characters of it; 0 if none. */
function lastBreak(s: string, re: RegExp, ok: (at: number) => boolean, keep?: number): number {
  let end = 0;
  for (const m of s.matchAll(re)) {
    const at = keep !== undefined ? m.index + keep : m.index;
    if (ok(at)) end = at;
  }
  return end;
}

function skipSpace(s: string, from: number, to: number): number {
  while (from < to && /\s/.test(s[from]!)) from++;
  return from;
}

function trimEnd(s: string, from: number, to: number): number {
  while (to > from && /\s/.test(s[to - 1]!)) to--;
  return to;
}
