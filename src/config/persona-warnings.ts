/**
 * What a valid persona file still lacks that a person in the chat would notice: said once at
 * start (a warning line per persona), never an error — the persona runs as it is.
 */
import type { Persona } from "./persona";

/** The warnings of one persona, each a sentence naming its file. */
export function personaWarnings(p: Persona): string[] {
  const out: string[] = [];
  if (p.life === undefined)
    out.push(
      `${p.file}: no "# Life" section: ${p.name} has no life of her own to tell (where she lives, what she does, what she likes, her people, her routines), so she will make it up or say she doesn't remember; see docs/persona-fields.md`,
    );
  return out;
}
