/** Where a message names the persona, and whether that is a clear address. */
export interface NameMatch {
  /** The name or alias as the persona file writes it. */
  readonly alias: string;
  /**
   * True when the match reads as the persona's name: capitalised (in a script with letter case),
   * or the message's first word, or a whole word in a script without letter case. False for a
   * match that may be an ordinary word ("кто смотрел чемпионат мира?" and the alias `Мира`), a
   * possessive ("Mira's birthday": about the persona, not to it), or an alias found inside a run
   * of letters of a script written without spaces.
   */
  readonly explicit: boolean;
  /**
   * True when the name is said *to* the persona — an explicit match that opens the message (after a
   * greeting) followed by a comma, colon, `!`, `?` or nothing more, or by a "you" among the next
   * few words ("Mira, …", "hey Mira!", "mira you there?"), or set off by a comma at
   * the end or in the middle ("you coming, Mira?", "what do you think, Mira, about it?"), or any
   * explicit match in a script without letter case. Only such a message is an explicit address;
   * one that names her otherwise ("Mira said the film was great") only talks about her, and goes
   * to the cheap addressing call, which answers it only when it speaks to her.
   */
  readonly spokenTo: boolean;
}

/** What the persona is called by; compiled once per persona, used on every group message. */
export interface AddressMatcher {
  /** True when one of the names appears in `text` (explicitly or not). */
  mentionsName(text: string): boolean;
  /** The clearest match of a name in `text` (an explicit one first), else undefined. */
  nameMatch(text: string): NameMatch | undefined;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A letter with an upper and a lower case (Latin, Cyrillic, Greek, Armenian…). */
const cased = (ch: string) => ch.toLowerCase() !== ch.toUpperCase();
/** Scripts written without spaces between words: a name is found inside a run of letters. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** An English possessive after a name: `'s`, `’s` (not `'s` starting a longer word). */
const POSSESSIVE = /^['’]s(?![\p{L}\p{N}_])/u;
/** What may stand before the message's first word: spaces, quotes, dashes, an @ or a greeting's punctuation. */
const LEADING = /^[\s"'«»„“”‘’(\-–—@]*$/u;
/** What may stand before a name said to the persona as the message's first word: a greeting too. */
const GREETING =
  /^[\s"'«»„“”‘’(\-–—@]*(?:(?:hey|hi|hello|yo|oh|ok|hallo|hej|hola|ciao|salut|ну|привет|эй|слушай)[\s,!]+)?$/iu;
/** After a name opening the message as a vocative: a comma, colon, `!`, `?`, a dash, or nothing more. */
const SAID_TO_AFTER = /^\s*(?:[,:!?—–-]|\p{Extended_Pictographic}|$)/u;
/** Without punctuation, a "you" among the next few words says it too ("mira you there?", "Mira can you…"). */
const SECOND_PERSON =
  /^(?:\s+[\p{L}'’]+){0,2}?\s+(?:you|u|ya|your|ты|вы|тебя|тебе|вас|du|dich|dir|ihr|tu|te|toi|vous|ti|jij|je|jullie)(?![\p{L}])/iu;
/**
 * After a name opening the message, words that go on to tell of her ("Mira said…", "Mira is
 * late"): then the message is about her. Any other continuation of an opening name is said to her
 * ("mirochka say six", "Mira help me") — a message rarely starts with a name it only mentions.
 */
const TELLS_OF =
  /^\s+(?:is|was|were|isn't|wasn't|said|says|told|tells|has|had|hasn't|will|won't|would|did|does|didn't|doesn't|can't|knows|thinks|likes|loves|hates|seems|looks|went|got|сказала|говорит|знает|была|будет|думает)(?![\p{L}'’])/iu;
/** A new sentence or clause starts before the name ("ok — Mira, help", "… 😂 Mira, get it?"): with a comma after it, a vocative. */
const CLAUSE_START = /(?:[.!?…—–:;]|\p{Extended_Pictographic}\ufe0f?)[\s"'«»„“”‘’(]*$/u;
const NO_MATCHES: readonly RegExpExecArray[] = [];
/** A comma before the name (a vocative set off at the end or the middle). */
const COMMA_BEFORE = /,\s*$/u;
/** After a name that closes the message: only punctuation, emoji and spaces. */
const CLOSING_AFTER = /^[\s?!.…)\p{Extended_Pictographic}\u200d\ufe0f]*$/u;

/**
 * Build a matcher for the persona's name and aliases. A whole word is one not glued to a letter,
 * digit or underscore on either side, in any script ("Mira" matches "Mira," and "@Mira" but not
 * "Miranda" or "Амира"); in a script written without spaces a name may sit inside a run of
 * letters, and such a match is never explicit. Case: any case matches, but only a capitalised
 * match (or the message's first word: "mira you there?") is explicit — lower case mid-sentence
 * is how an ordinary word is written. A possessive ("Mira's birthday") is never explicit: it
 * speaks of the persona.
 */
export function compileAddressMatcher(names: readonly string[]): AddressMatcher {
  const cleaned = [...new Set(names.map((n) => n.trim()).filter(Boolean))];
  if (cleaned.length === 0) return { mentionsName: () => false, nameMatch: () => undefined };
  const byLower = new Map(cleaned.map((n) => [n.toLowerCase(), n]));
  // Longest first, so "Mira Lee" wins over "Mira".
  const alternatives = [...cleaned]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|");
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives})(?![\\p{L}\\p{N}_])`, "giu");
  const unspaced = cleaned.filter((n) => UNSPACED.test(n));
  const inside = unspaced.length > 0 ? new RegExp(`(?:${unspaced.map(escape).join("|")})`, "giu") : undefined;
  const nameMatch = (text: string): NameMatch | undefined => {
    let weak: NameMatch | undefined;
    let named: NameMatch | undefined;
    // Most messages name nobody (the hot path): one test, without matchAll's copy of the expression.
    re.lastIndex = 0;
    const any = re.test(text);
    re.lastIndex = 0;
    for (const m of any ? text.matchAll(re) : NO_MATCHES) {
      const alias = byLower.get(m[0].toLowerCase()) ?? m[0];
      const first = m[0][0]!;
      // A possessive ("Mira's birthday") speaks of the persona, not to it.
      const end = m.index + m[0].length;
      const possessive = POSSESSIVE.test(text.slice(end, end + 3));
      const explicit =
        !possessive &&
        (!cased(first) || first !== first.toLowerCase() || LEADING.test(text.slice(0, m.index)));
      if (explicit) {
        const before = text.slice(0, m.index);
        const after = text.slice(end);
        const spokenTo =
          !cased(first) ||
          (GREETING.test(before) && (SAID_TO_AFTER.test(after) || SECOND_PERSON.test(after))) ||
          (LEADING.test(before) && !TELLS_OF.test(after)) ||
          (CLAUSE_START.test(before) && /^\s*[,:!?]/u.test(after)) ||
          (COMMA_BEFORE.test(before) && (CLOSING_AFTER.test(after) || /^\s*,/u.test(after)));
        if (spokenTo) return { alias, explicit, spokenTo };
        named ??= { alias, explicit, spokenTo };
        continue;
      }
      weak ??= { alias, explicit: false, spokenTo: false };
    }
    if (named !== undefined) return named;
    if (weak === undefined && inside !== undefined) {
      const m = inside.exec(text);
      inside.lastIndex = 0;
      if (m) weak = { alias: byLower.get(m[0].toLowerCase()) ?? m[0], explicit: false, spokenTo: false };
    }
    return weak;
  };
  return { mentionsName: (text) => nameMatch(text) !== undefined, nameMatch };
}
