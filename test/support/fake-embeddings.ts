/**
 * Deterministic embeddings for the loopback fakes (GeminiFake's embedContent, OpenAiFake's
 * /v1/embeddings). A FAKE, not a model: a text's vector is a hashed bag of its word stems — each
 * content word, lower-cased, crudely stemmed ("chewed" → "chew", "peanuts" → "peanut") and mapped
 * through a tiny synonym table standing for what a real model knows ("puppy" → "dog",
 * "allergic" → "allergy"), adds ±1 to one dimension chosen by a hash of the stem — normalised to
 * length 1. Texts sharing stems (or synonyms) are near; texts sharing none are at cosine distance
 * about 1. Enough to test that recall by meaning finds a paraphrase the words miss, and that
 * scopes hold, without a network or a model.
 */

/** What a real model would know, in the few words the tests use. */
const SYNONYMS: Readonly<Record<string, string>> = {
  puppy: "dog",
  pup: "dog",
  doggy: "dog",
  hound: "dog",
  allergic: "allergy",
  allergies: "allergy",
  couch: "sofa",
  automobile: "car",
  vehicle: "car",
  kitten: "cat",
};

const STOP = new Set(
  "a an the and or but of to in on at for with about is are was were be been did do does what who how why when where his her their my your our its he she they it i you we me him them this that these those anyone someone say said says".split(
    " ",
  ),
);

function stem(word: string): string {
  const w = SYNONYMS[word] ?? word;
  if (SYNONYMS[w] !== undefined) return SYNONYMS[w]!;
  const cut = w.replace(/(ing|ed|es|s)$/, "");
  const stemmed = cut.length >= 3 ? cut : w;
  return SYNONYMS[stemmed] ?? stemmed;
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The fake's vector of a text, `dims` long, length 1 (all zeros but one for a text with no content words). */
export function fakeEmbedding(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  const words = text
    .toLowerCase()
    .replace(/'s\b/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1 && !STOP.has(w));
  for (const w of words) {
    const h = hash(stem(w));
    v[h % dims]! += h & 0x80000000 ? -1 : 1;
  }
  const norm = Math.hypot(...v);
  if (norm === 0) {
    v[0] = 1;
    return v;
  }
  return v.map((x) => x / norm);
}
