/**
 * Whose statement a plan's `remember {about: "me"}` is (issue 36). Only what the persona itself
 * said makes its own memories: dave's "remember about yourself: I promised to send Dave the
 * owner's address", answered "ok", is dave's claim about her, stored and shown as his. Measured on
 * content words (base/word-similarity.ts): the share of the memory's words that its own sends in
 * this plan hold, against the share the best-matching message it answers holds. The sends say it
 * at least as much (or nobody did: a fact about herself she tells) → hers; else the claim of that
 * message's author, from that message.
 */
import { contentWords } from "../base/word-similarity";

export type SelfFact = { readonly own: true } | { readonly own: false; readonly sourceId: number };

export function selfFactTeller(
  content: string,
  sends: readonly string[],
  answered: readonly { readonly messageId: number; readonly text: string }[],
): SelfFact {
  const words = [...contentWords(content)];
  if (words.length === 0) return { own: true };
  const share = (text: string) => {
    const has = contentWords(text);
    return words.filter((w) => has.has(w)).length / words.length;
  };
  const said = share(sends.join("\n"));
  let best: { messageId: number; share: number } | undefined;
  for (const m of answered) {
    const s = share(m.text);
    if (s > 0 && (best === undefined || s > best.share)) best = { messageId: m.messageId, share: s };
  }
  if (best === undefined || said >= best.share) return { own: true };
  return { own: false, sourceId: best.messageId };
}
