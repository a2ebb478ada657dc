/**
 * The persona's names as an address matcher that follows a persona file edited while running
 * (app/persona-watch.ts): compiled again only when the persona's name or aliases list is
 * replaced — one reference comparison per message otherwise.
 */
import type { Persona } from "../config/persona";
import { compileAddressMatcher, type AddressMatcher } from "./addressing";

export function liveAddressMatcher(persona: Pick<Persona, "name" | "aliases">): AddressMatcher {
  let name = persona.name;
  let aliases = persona.aliases;
  let m = compileAddressMatcher([name, ...aliases]);
  const current = (): AddressMatcher => {
    if (persona.aliases !== aliases || persona.name !== name) {
      name = persona.name;
      aliases = persona.aliases;
      m = compileAddressMatcher([name, ...aliases]);
    }
    return m;
  };
  return {
    mentionsName: (text) => current().mentionsName(text),
    nameMatch: (text) => current().nameMatch(text),
  };
}
