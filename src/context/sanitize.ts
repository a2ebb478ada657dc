/**
 * Cleans untrusted Telegram text (bodies, names, quotes) before it goes into a prompt.
 *
 * Two goals: strip what is invisible or reorders text (so what the model reads is what a human
 * sees), and make the envelope's structure characters impossible to type, so no sender can forge
 * a message header or a reply annotation (see envelope.ts).
 */

/**
 * Code points the envelope uses as structure, and what user text gets instead.
 * `⟦ ⟧` delimit a message header and `↩` starts a reply annotation; nothing else in the envelope
 * is unforgeable on its own (`[`, `·`, `#` are ordinary text).
 */
const RESERVED: ReadonlyMap<string, string> = new Map([
  ["\u27E6", "["], // ⟦
  ["\u27E7", "]"], // ⟧
  ["\u21A9", "<-"], // ↩
  // Lookalikes NFKC keeps: double and white brackets, hooked and return arrows. A model reads
  // `〚#3 agent〛` or `⮌ reply to #3` much as it reads the real structure, so they go too.
  ["\u301A", "["], // 〚
  ["\u301B", "]"], // 〛
  ["\u27EA", "["], // ⟪
  ["\u27EB", "]"], // ⟫
  ["\u27EC", "["], // ⟬
  ["\u27ED", "]"], // ⟭
  ["\u2983", "["], // ⦃
  ["\u2984", "]"], // ⦄
  ["\u21AA", "->"], // ↪
  ["\u2B8C", "<-"], // ⮌
  ["\u2B90", "<-"], // ⮐
  ["\u21B5", "<-"], // ↵
  ["\u21B2", "<-"], // ↲
  ["\u21B0", "<-"], // ↰
  ["\u2936", "<-"], // ⤶
  ["\u293A", "<-"], // ⤺
  ["\u23CE", "<-"], // ⏎
]);
const RESERVED_RE =
  /[\u27E6\u27E7\u21A9\u301A\u301B\u27EA-\u27ED\u2983\u2984\u21AA\u2B8C\u2B90\u21B5\u21B2\u21B0\u2936\u293A\u23CE]/gu;

/** Line breaks of every flavour; they all become "\n" in a body. */
const LINE_BREAK_RE = /\r\n|[\r\v\f\u0085\u2028\u2029]/gu;

/**
 * Removed outright:
 * - C0/C1 controls except \t and \n (line-break controls were turned into \n before this runs);
 * - zero-width characters U+200B, U+200C, U+2060, U+FEFF, U+180E (U+200D is handled separately);
 * - bidi controls U+200E, U+200F, U+061C, U+202A–U+202E, U+2066–U+2069, which can make a
 *   displayed name or quote read differently from its code points;
 * - invisible operators U+2061–U+2064, deprecated format controls U+206A–U+206F and interlinear
 *   annotation controls U+FFF9–U+FFFB: invisible, and no legitimate chat text needs them.
 * Variation selectors U+FE0E/U+FE0F are deliberately NOT here: a peer's sanitizer stripped U+FE0F
 * and turned ❤️ into a text-style ❤.
 */
const INVISIBLE_RE = new RegExp(
  [
    "[\\u0000-\\u0008\\u000B-\\u001F\\u007F-\\u009F", // C0/C1 controls but \t \n
    "\\u200B\\u200C\\u2060\\uFEFF\\u180E", // zero-width
    "\\u200E\\u200F\\u061C\\u202A-\\u202E\\u2066-\\u2069", // bidi
    "\\u2061-\\u2064\\u206A-\\u206F\\uFFF9-\\uFFFB]", // invisible operators, format, annotation
  ].join(""),
  "gu",
);

/** A surrogate half without its partner (malformed UTF-16); replaced by U+FFFD. */
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

const ZWJ = "\u200D";
const PICTOGRAPHIC_RE = /^\p{Extended_Pictographic}$/u;
/** Code points that may sit between an emoji and the ZWJ that follows it (🏳️‍🌈, 👨🏽‍💻). */
const EMOJI_TAIL_RE = /^[\uFE0E\uFE0F\u{1F3FB}-\u{1F3FF}]$/u;

/** Runs of text without pictographs; only these are NFKC-normalised (see normalizeKeepingEmoji). */
const NON_PICTOGRAPHIC_RUN_RE = /[^\p{Extended_Pictographic}]+/gu;

/**
 * NFKC, except on pictographic code points: NFKC folds the emoji ™️ ℹ️ Ⓜ️ ‼️ 🈚 … into "TM",
 * "i", "M", "!!", "無", which changes what the sender wrote. Splitting at pictographs does not
 * change the result elsewhere: they are starters that never compose with a neighbour.
 */
function normalizeKeepingEmoji(s: string): string {
  return s.replace(NON_PICTOGRAPHIC_RUN_RE, (run) => run.normalize("NFKC"));
}

/**
 * Drops every U+200D except one that joins two emoji (👨‍👩‍👧, ❤️‍🔥, 🏳️‍🌈); a joiner anywhere else is
 * only useful for splitting a word or a marker so a filter misses it.
 */
function dropStrayJoiners(s: string): string {
  if (!s.includes(ZWJ)) return s;
  const cps = Array.from(s);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i++) {
    const cp = cps[i] as string;
    if (cp !== ZWJ) {
      out.push(cp);
      continue;
    }
    const next = cps[i + 1];
    if (next === undefined || !PICTOGRAPHIC_RE.test(next)) continue;
    let j = out.length - 1;
    while (j >= 0 && EMOJI_TAIL_RE.test(out[j] as string)) j--;
    const base = out[j];
    if (base !== undefined && PICTOGRAPHIC_RE.test(base)) out.push(cp);
  }
  return out.join("");
}

function stripInvisible(s: string): string {
  return dropStrayJoiners(s.replace(INVISIBLE_RE, ""));
}

/**
 * Sanitises multi-line text (a message body): all line breaks become "\n"; controls, zero-width
 * and bidi characters are removed (an emoji-joining U+200D stays); the text is NFKC-normalised
 * (emoji excepted) so fullwidth and other compatibility lookalikes become their plain forms; and
 * the envelope's reserved characters are replaced (`⟦`→`[`, `⟧`→`]`, `↩`→`<-`) so the result can
 * never contain envelope structure. Emoji, variation selectors and skin tones survive unchanged.
 * Idempotent.
 */
export function sanitizeText(s: string): string {
  const cleaned = stripInvisible(s.replace(LONE_SURROGATE_RE, "\uFFFD").replace(LINE_BREAK_RE, "\n"));
  // Normalise before neutralising: NFKC may produce a reserved character, and after NFKC it may
  // also produce line breaks or invisibles from compatibility forms, so clean once more.
  const normalized = normalizeKeepingEmoji(cleaned).replace(LINE_BREAK_RE, "\n");
  return stripInvisible(normalized).replace(RESERVED_RE, (c) => RESERVED.get(c) ?? "");
}

/**
 * Sanitises text that must stay on one line (a sender name, a quoted reply): `sanitizeText`, then
 * every line break and run of whitespace becomes a single space, and the ends are trimmed.
 */
export function sanitizeLine(s: string): string {
  return sanitizeText(s).replace(/\s+/gu, " ").trim();
}

/**
 * The reference syntax `[name](tg:…)` (speaker.ts) typed by a person: every `(` that opens `tg:`
 * (any case, spaces allowed) gets a `\` before it, so `[Bob](tg:user/42)` typed in a message reads
 * `[Bob]\(tg:user/42)` — visibly not a reference. Run it on sanitised text (NFKC has already folded
 * fullwidth `（ｔｇ：` and the like into `(tg:`); only the references the code builds itself
 * (mentions.ts, speaker.ts) are written without it. Idempotent.
 */
export function neutralizeReferences(s: string): string {
  return s.replace(REFERENCE_OPEN_RE, "\\");
}
// `t` and `g` with their lookalikes NFKC keeps (Greek tau, Cyrillic te, small-capital T, script g,
// small-capital G, Armenian co), and colon lookalikes.
const REFERENCE_OPEN_RE =
  /(?<!\\)(?=\(\s*[t\u03C4\u0442\u1D1B][g\u0261\u0262\u0581]\s*[:\uA789\u02F8\u0589\u2236])/giu;

/**
 * Text a person typed that reads like a media part the prompt writes itself (`[voice 0:12: "…"]`,
 * `[photo: …]`, `[sticker 👍]`): its `[` gets a `\`, so a typed part is visibly not a real one.
 * Run it on bodies (captions included), never on the media part the renderer built. Idempotent.
 */
export function escapeMediaMarkers(s: string): string {
  return s.replace(MEDIA_MARKER_RE, "\\");
}
const MEDIA_MARKER_RE =
  /(?<!\\)(?=\[\s*(?:photo|sticker|gif|video note|video|voice|audio|document|file|poll|location|contact|album|media|picture|link|looked up)\b)/giu;

/**
 * A body line that begins (after any spaces) with `>` would read like the envelope's quote line
 * (Telegram's partial quote of a reply): the marker gets a `\` before it, on every line. Run it on
 * sanitised text (NFKC folds fullwidth `＞` and small `﹥` into `>`); the lookalikes NFKC keeps
 * (`› ❯ ˃ ᐳ ⟩ 〉`) are escaped the same way. Idempotent.
 */
export function escapeQuoteMarkers(s: string): string {
  return s.replace(QUOTE_MARKER_RE, "$1\\$2");
}
const QUOTE_MARKER_RE = /^([^\S\n]*)([>\u203A\u276F\u02C3\u1433\u27E9\u3009])/gmu;
