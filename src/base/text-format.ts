/**
 * Markdown as people (and models) write it in a chat, turned into plain text and formatting
 * entities — Telegram shows formatting as entities beside the text, never as markers in it, so
 * `**bold**` sent as it is reaches the chat with its asterisks.
 *
 * What is understood: `**bold**` (and `__bold__`), `*italic*` and `_italic_`, `~~strike~~`,
 * `` `code` ``, fenced ```` ``` ```` blocks (with an optional language on the first line) and
 * `[text](url)` links (http, https, tg, mailto), nested as in `**bold _and italic_**`. A
 * backslash before a marker keeps it literal. Everything else stays as written: a marker that is
 * not closed, or does not hug a word the way CommonMark's flanking rules ask (`2 * 3 * 4`,
 * `snake_case_name`, a `* ` bullet), is text.
 *
 * Offsets and lengths are in UTF-16 code units, as Telegram counts them — which is how
 * JavaScript indexes strings, so an emoji before an entity counts 2. Platform-free (no GramJS):
 * the Telegram side turns these into its entity objects (telegram/outbound/text-entities.ts).
 */

type FormatKind = "bold" | "italic" | "strike" | "code" | "pre" | "link";

/** One formatting entity of a plain text (UTF-16 offsets). */
export interface FormatEntity {
  readonly kind: FormatKind;
  readonly offset: number;
  readonly length: number;
  /** The target of a link. */
  readonly url?: string;
  /** The language of a `pre` block, when its fence named one. */
  readonly language?: string;
}

/** A text as it is sent: the words and the formatting beside them. */
export interface FormattedText {
  readonly text: string;
  readonly entities: readonly FormatEntity[];
}

const MARKERS: readonly { readonly s: string; readonly kind: FormatKind }[] = [
  { s: "**", kind: "bold" },
  { s: "__", kind: "bold" },
  { s: "~~", kind: "strike" },
  { s: "*", kind: "italic" },
  { s: "_", kind: "italic" },
];
const ESCAPABLE = new Set([..."\\*_~`[]()"]);
const LINK_RE = /^\[([^\]\n]{1,500})\]\(((?:https?:\/\/|tg:\/\/|mailto:)[^\s()]{1,2000})\)/;
const WORD = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

/** One piece of the source: literal text, an opaque code/pre/link, or a marker that may pair. */
type Piece =
  | { readonly t: "text"; readonly s: string }
  | {
      readonly t: "atom";
      readonly out: FormattedText;
      readonly kind?: FormatKind;
      readonly url?: string;
      readonly language?: string;
    }
  | {
      readonly t: "marker";
      readonly s: string;
      readonly kind: FormatKind;
      readonly open: boolean;
      readonly close: boolean;
    };

/** Plain text and entities of `markdown` (see the module comment). */
export function parseMarkdown(markdown: string): FormattedText {
  const pieces = tokenize(markdown);
  // Pair markers, CommonMark-style: a closer pairs with the nearest open marker of the same kind
  // of run; openers in between stay text.
  const pairOf = new Map<number, number>();
  const stack: number[] = [];
  pieces.forEach((p, i) => {
    if (p.t !== "marker") return;
    if (p.close) {
      for (let k = stack.length - 1; k >= 0; k--) {
        const o = pieces[stack[k]!] as Extract<Piece, { t: "marker" }>;
        if (o.s !== p.s) continue;
        pairOf.set(stack[k]!, i);
        pairOf.set(i, stack[k]!);
        stack.length = k;
        return;
      }
    }
    if (p.open) stack.push(i);
  });
  let text = "";
  const entities: FormatEntity[] = [];
  const starts = new Map<number, number>();
  pieces.forEach((p, i) => {
    if (p.t === "text") {
      text += p.s;
      return;
    }
    if (p.t === "atom") {
      const at = text.length;
      text += p.out.text;
      if (p.kind !== undefined && p.out.text.length > 0)
        entities.push({
          kind: p.kind,
          offset: at,
          length: p.out.text.length,
          ...(p.url !== undefined ? { url: p.url } : {}),
          ...(p.language !== undefined ? { language: p.language } : {}),
        });
      for (const e of p.out.entities) entities.push({ ...e, offset: e.offset + at });
      return;
    }
    const mate = pairOf.get(i);
    if (mate === undefined) {
      text += p.s;
      return;
    }
    if (mate > i) starts.set(i, text.length);
    else {
      const from = starts.get(mate)!;
      if (text.length > from) entities.push({ kind: p.kind, offset: from, length: text.length - from });
    }
  });
  entities.sort((a, b) => a.offset - b.offset || b.length - a.length);
  return { text, entities };
}

function tokenize(src: string): Piece[] {
  const pieces: Piece[] = [];
  let literal = "";
  const flush = () => {
    if (literal !== "") pieces.push({ t: "text", s: literal });
    literal = "";
  };
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === "\\" && i + 1 < src.length && ESCAPABLE.has(src[i + 1]!)) {
      literal += src[i + 1];
      i += 2;
      continue;
    }
    if (src.startsWith("```", i)) {
      const end = src.indexOf("```", i + 3);
      if (end > i + 3) {
        let body = src.slice(i + 3, end);
        const lang = /^([A-Za-z0-9_+#.-]{1,32})\n/.exec(body);
        if (lang) body = body.slice(lang[0].length);
        else if (body.startsWith("\n")) body = body.slice(1);
        if (body.endsWith("\n")) body = body.slice(0, -1);
        flush();
        pieces.push({
          t: "atom",
          out: { text: body, entities: [] },
          kind: "pre",
          ...(lang ? { language: lang[1]! } : {}),
        });
        i = end + 3;
        continue;
      }
    }
    if (c === "`") {
      const end = src.indexOf("`", i + 1);
      if (end > i + 1 && !src.slice(i + 1, end).includes("\n")) {
        flush();
        pieces.push({ t: "atom", out: { text: src.slice(i + 1, end), entities: [] }, kind: "code" });
        i = end + 1;
        continue;
      }
    }
    if (c === "[") {
      const m = LINK_RE.exec(src.slice(i, i + 2600));
      if (m) {
        flush();
        pieces.push({ t: "atom", out: parseMarkdown(m[1]!), kind: "link", url: m[2]! });
        i += m[0].length;
        continue;
      }
    }
    const marker = MARKERS.find((mk) => src.startsWith(mk.s, i));
    if (marker) {
      const before = i > 0 ? src[i - 1]! : " ";
      const after = i + marker.s.length < src.length ? src[i + marker.s.length]! : " ";
      // Flanking: an opener hugs the word after it and is not glued to a word before it; a
      // closer hugs the word before it and is not glued to a word after it.
      const open = !SPACE.test(after) && !WORD.test(before) && after !== marker.s[0];
      const close = !SPACE.test(before) && !WORD.test(after) && before !== marker.s[0];
      if (open || close) {
        flush();
        pieces.push({ t: "marker", s: marker.s, kind: marker.kind, open, close });
        i += marker.s.length;
        continue;
      }
      literal += marker.s;
      i += marker.s.length;
      continue;
    }
    literal += c;
    i++;
  }
  flush();
  return pieces;
}

/**
 * The part `[start, end)` of a formatted text: its words, and the entities that reach into it,
 * cut to it (an entity split across two messages is formatted in both).
 */
export function sliceFormatted(f: FormattedText, start: number, end: number): FormattedText {
  const entities: FormatEntity[] = [];
  for (const e of f.entities) {
    const from = Math.max(e.offset, start);
    const to = Math.min(e.offset + e.length, end);
    if (to > from) entities.push({ ...e, offset: from - start, length: to - from });
  }
  return { text: f.text.slice(start, end), entities };
}
