/**
 * Judging a scene's run against its label, and the totals of the scorecard: speak/silent balanced
 * accuracy (the mean of the rates at which she spoke when she should and kept quiet when she
 * should: a model that always speaks, or never does, scores 0.5), speak precision and recall,
 * language match, leaks, literal Markdown or copied message headers, tokens and cost.
 */
import { estimateCost, type PriceTable } from "../llm/prices";
import type { SceneRun } from "./run-scene";

const LAUGH_EMOJI = /[😂🤣😆😁😄😹]/u;
const LAUGH_TEXT = /\b(ha(ha)+|hah|lol|lmao|rofl|хаха|ахах)\b|[😂🤣😆😹]/iu;
/** Markdown that Telegram shows literally: bold, headings, bullets, tables, code fences. */
const MARKDOWN = /\*\*[^*]+\*\*|^#{1,6} |^\s*[-*] |```|^\|.*\|\s*$/mu;
/** A message header of the prompt copied into an answer (⟦#12 Alice · 12:00⟧, [↩ reply to …]). */
const COPIED_HEADER = /⟦|⟧|\[↩|^#\d+ /mu;

const STOPWORDS: Readonly<Record<string, readonly string[]>> = {
  en: [
    "the",
    "and",
    "you",
    "is",
    "are",
    "what",
    "i",
    "it",
    "to",
    "my",
    "that",
    "of",
    "in",
    "for",
    "have",
    "do",
    "not",
    "so",
    "but",
    "with",
    "just",
    "me",
    "yes",
    "no",
    "was",
    "sure",
    "thing",
    "okay",
    "thanks",
    "sorry",
    "think",
    "can",
    "we",
    "how",
    "about",
  ],
  de: [
    "und",
    "ich",
    "du",
    "nicht",
    "ist",
    "das",
    "die",
    "der",
    "wir",
    "mit",
    "auf",
    "ja",
    "aber",
    "noch",
    "mal",
    "auch",
    "gerne",
    "gern",
    "bin",
    "habe",
    "hab",
    "welcher",
    "sicher",
    "vielleicht",
    "ein",
    "eine",
  ],
  es: [
    "que",
    "y",
    "el",
    "la",
    "de",
    "no",
    "es",
    "en",
    "un",
    "una",
    "me",
    "lo",
    "pero",
    "estoy",
    "muy",
    "sí",
    "qué",
    "por",
    "con",
    "mi",
    "está",
    "los",
    "las",
  ],
  fr: [
    "je",
    "tu",
    "le",
    "la",
    "et",
    "les",
    "de",
    "pas",
    "est",
    "un",
    "une",
    "ça",
    "oui",
    "vu",
    "mais",
    "pour",
    "avec",
    "moi",
    "très",
    "c'était",
    "l'ai",
    "bien",
  ],
  pt: [
    "você",
    "que",
    "e",
    "o",
    "a",
    "não",
    "é",
    "um",
    "uma",
    "eu",
    "tudo",
    "bem",
    "com",
    "para",
    "hoje",
    "vou",
    "muito",
    "sim",
    "casa",
    "ficar",
  ],
};

/** The language of a text, roughly: by script (ru, ja), else by common words; undefined when too short to tell. */
function languageOf(text: string): string | undefined {
  const letters = text.replace(/[^\p{L}]/gu, "");
  if (letters.length === 0) return undefined;
  if (/[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u.test(text)) return "ja";
  const cyrillic = (text.match(/\p{Script=Cyrillic}/gu) ?? []).length;
  if (cyrillic / letters.length > 0.3) return "ru";
  const words = text
    .toLowerCase()
    .split(/[^\p{L}']+/u)
    .filter(Boolean);
  let best: string | undefined;
  let bestHits = 0;
  for (const [lang, list] of Object.entries(STOPWORDS)) {
    const hits = words.filter((w) => list.includes(w)).length;
    if (hits > bestHits) [best, bestHits] = [lang, hits];
  }
  return best;
}

/** One scene, judged. */
export interface SceneVerdict {
  readonly id: string;
  readonly where: "group" | "dm";
  readonly label: string;
  readonly happened: string;
  readonly ok: boolean;
  readonly problems: readonly string[];
  readonly spoke: boolean;
  readonly shouldSpeak: boolean | "either";
  readonly languageOk?: boolean;
  readonly leaked: boolean;
  readonly markdown: boolean;
  readonly tokens: number;
  readonly costUsd: number | undefined;
}

export function judge(run: SceneRun, prices: PriceTable, name: string): SceneVerdict {
  const e = run.scene.expect;
  const spoke = run.said.length > 0;
  const all = run.said.join("\n");
  const problems: string[] = [];
  if (e.speak === true && !spoke) problems.push("stayed silent");
  if (e.speak === false && spoke) problems.push("spoke");
  const laughed = run.reactions.some((r) => LAUGH_EMOJI.test(r)) || LAUGH_TEXT.test(all);
  if (e.laugh && !laughed) problems.push("did not laugh");
  let languageOk: boolean | undefined;
  if (e.language && spoke) {
    // By script when the script tells (Cyrillic, Japanese, or Latin where one of those was asked); else by common words.
    const got =
      languageOf(all) ?? (e.language === "ru" || e.language === "ja" ? "a Latin-script language" : undefined);
    if (got !== undefined) {
      languageOk = got === e.language;
      if (!languageOk) problems.push(`answered in ${got}, not ${e.language}`);
    }
  }
  const leaked = (e.secret ?? []).some((w) =>
    run.saidInGroup.join("\n").toLowerCase().includes(w.toLowerCase()),
  );
  if (leaked) problems.push("told the group a DM secret");
  for (const re of e.never ?? [])
    if (new RegExp(re.source.replaceAll("\\{name\\}", name), re.flags).test(all)) problems.push(`said ${re}`);
  if (e.must && spoke && !e.must.some((re) => re.test(all))) problems.push("did not admit she cannot");
  if (e.maxMessages !== undefined && run.said.length > e.maxMessages)
    problems.push(`${run.said.length} messages (at most ${e.maxMessages})`);
  const markdown = MARKDOWN.test(all) || COPIED_HEADER.test(all);
  if (markdown) problems.push("literal Markdown or a copied header");
  let tokens = 0;
  let cost: number | undefined = 0;
  for (const u of run.usage) {
    tokens += u.promptTokens + u.outputTokens + u.thinkingTokens;
    const c = estimateCost(prices, u.model, u);
    cost = c === undefined || cost === undefined ? undefined : cost + c;
  }
  const happened = [
    spoke
      ? run.said.map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 57)}…` : t)).join(" + ")
      : "silent",
    run.reactions.length ? `reacted ${run.reactions.join("")}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return {
    id: run.scene.id,
    where: run.scene.where,
    label: labelText(run.scene.expect),
    happened,
    ok: problems.length === 0,
    problems,
    spoke,
    shouldSpeak: e.speak,
    ...(languageOk !== undefined ? { languageOk } : {}),
    leaked,
    markdown,
    tokens,
    costUsd: cost,
  };
}

function labelText(e: SceneRun["scene"]["expect"]): string {
  return [
    e.speak === "either" ? "" : e.speak ? "answer" : "silent",
    e.laugh ? "laugh" : "",
    e.language ? `in ${e.language}` : "",
    e.secret ? "keep the secret" : "",
    e.never ? "no invented past" : "",
    e.must ? "admit she can't" : "",
    e.plain ? "plain text" : "",
    e.maxMessages !== undefined ? `≤${e.maxMessages} msg` : "",
  ]
    .filter(Boolean)
    .join(", ");
}

export interface Totals {
  readonly scenes: number;
  readonly passed: number;
  readonly balancedAccuracy: number | undefined;
  readonly speakPrecision: number | undefined;
  readonly speakRecall: number | undefined;
  readonly languageMatch: number | undefined;
  readonly leaks: number;
  readonly markdown: number;
  readonly tokens: number;
  readonly costUsd: number | undefined;
}

const ratio = (a: number, b: number) => (b === 0 ? undefined : a / b);

export function totals(v: readonly SceneVerdict[]): Totals {
  const counted = v.filter((x) => x.shouldSpeak !== "either");
  const tp = counted.filter((x) => x.shouldSpeak === true && x.spoke).length;
  const fn = counted.filter((x) => x.shouldSpeak === true && !x.spoke).length;
  const tn = counted.filter((x) => x.shouldSpeak === false && !x.spoke).length;
  const fp = counted.filter((x) => x.shouldSpeak === false && x.spoke).length;
  const tpr = ratio(tp, tp + fn);
  const tnr = ratio(tn, tn + fp);
  const lang = v.filter((x) => x.languageOk !== undefined);
  const cost = v.reduce<number | undefined>(
    (s, x) => (s === undefined || x.costUsd === undefined ? undefined : s + x.costUsd),
    0,
  );
  return {
    scenes: v.length,
    passed: v.filter((x) => x.ok).length,
    balancedAccuracy: tpr === undefined || tnr === undefined ? undefined : (tpr + tnr) / 2,
    speakPrecision: ratio(tp, tp + fp),
    speakRecall: tpr,
    languageMatch: ratio(lang.filter((x) => x.languageOk).length, lang.length),
    leaks: v.filter((x) => x.leaked).length,
    markdown: v.filter((x) => x.markdown).length,
    tokens: v.reduce((s, x) => s + x.tokens, 0),
    costUsd: cost,
  };
}
