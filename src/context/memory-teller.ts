/**
 * Who told a memory, as its line in the request says it (issue 36): every memory the model reads
 * names its teller, so a planted "fact" never reads as something nobody said. `[Dave] said:`
 * (`said in "Sandbox":` when learnt in another chat), `you said:` for what the persona said
 * itself, `the owner wrote:` for the operator's words (an edit, a curated file), and
 * `someone said:` for an older row that kept no teller.
 */
import type { Speaker } from "./speaker";

/** What of a memory line says who told it (context/envelope.ts MemoryNote). */
interface TellerFacts<P> {
  readonly teller?: Speaker;
  readonly toldAs?: "you" | "the owner" | "unknown";
  readonly edited?: boolean;
  readonly where?: P;
}

export function memoryTeller<P>(
  o: TellerFacts<P>,
  place: (p: P) => string,
  ref: (s: Speaker) => string,
): string {
  if (o.edited === true || o.toldAs === "the owner") return "the owner wrote:";
  const where = o.where !== undefined ? ` in ${place(o.where)}` : "";
  if (o.teller !== undefined) return `${ref(o.teller)} said${where}:`;
  if (o.toldAs === "you") return `you said${where}:`;
  return `someone said${where}:`;
}

/** In a private chat its partner is named bare (`[Carol]`), as the subject and as the teller. */
export function barePartner<N extends { readonly about?: Speaker; readonly teller?: Speaker }>(
  n: N,
  partner: string | undefined,
): N {
  if (partner === undefined) return n;
  return {
    ...n,
    ...(n.about?.id === partner ? { about: { ...n.about, bare: true } } : {}),
    ...(n.teller?.id === partner ? { teller: { ...n.teller, bare: true } } : {}),
  };
}
