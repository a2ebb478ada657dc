/**
 * The sticker section of the system instruction: what the persona may send — its explicit
 * stickers (`# Agent Stickers`, `set::name`) and the curated stickers of its sets — each with its
 * description when a curated file has one, then the sets it may use freely — each with its
 * stickers' emoji once they are known (a set is fetched by the first sticker sent from it), so
 * the model picks one the set has. Bounded (30 lines, 1,500 characters, 40 emoji a set), since
 * it is paid for on every planning call.
 */
import type { Persona } from "../config/persona";
import type { CuratedSources } from "./curated";

const STICKER_MENU_MAX_LINES = 30;
export const STICKER_MENU_MAX_CHARS = 1500;

const norm = (s: string) => s.replace(/\uFE0F/g, "");

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

/** At most this many emoji of one set are listed. */
const SET_EMOJI_MAX = 40;

/**
 * The section, or undefined when the persona may send no sticker. `known`: the emoji of the sets
 * whose stickers are known (fetched for an earlier send), listed so the model need not guess.
 */
export function stickerMenu(
  persona: Pick<Persona, "stickers" | "stickerSets">,
  curated: CuratedSources,
  known: ReadonlyMap<string, readonly string[]> = new Map(),
): string | undefined {
  if (persona.stickers.length === 0 && persona.stickerSets.length === 0) return undefined;
  const describe = (set: string, name: string) =>
    (curated.persona.bySticker(set, name) ?? curated.global.bySticker(set, name))?.description;
  const seen = new Set<string>();
  const entries: { set: string; name: string; description?: string }[] = [];
  const add = (set: string, name: string, description: string | undefined) => {
    const key = `${set.toLowerCase()}::${norm(name)}`;
    if (seen.has(key)) return;
    seen.add(key);
    entries.push({ set, name, ...(description ? { description: oneLine(description) } : {}) });
  };
  for (const s of persona.stickers) add(s.set, s.name, describe(s.set, s.name));
  const sets = new Set(persona.stickerSets.map((s) => s.toLowerCase()));
  for (const source of [curated.persona, curated.global]) {
    for (const e of source.entries()) {
      if (e.stickerSet && e.stickerName && sets.has(e.stickerSet.toLowerCase()))
        add(
          persona.stickerSets.find((s) => s.toLowerCase() === e.stickerSet!.toLowerCase())!,
          e.stickerName,
          e.description,
        );
    }
  }
  const lines = ["Stickers you may send (task sticker {set, emoji}):"];
  let chars = lines[0]!.length;
  let shown = 0;
  for (const e of entries) {
    const line = `- ${e.set}::${e.name}${e.description ? ` — ${e.description}` : ""}`;
    if (shown >= STICKER_MENU_MAX_LINES || chars + line.length + 1 > STICKER_MENU_MAX_CHARS) break;
    lines.push(line);
    chars += line.length + 1;
    shown++;
  }
  if (shown < entries.length) lines.push(`- (${entries.length - shown} more not listed)`);
  const unknown: string[] = [];
  for (const set of persona.stickerSets) {
    const emoji = [...new Set((known.get(set) ?? []).map(norm))];
    if (emoji.length === 0) unknown.push(set);
    else lines.push(`- ${set}: ${emoji.slice(0, SET_EMOJI_MAX).join(" ")}`);
  }
  if (unknown.length) lines.push(`Also any sticker of these sets, by its emoji: ${unknown.join(", ")}.`);
  return lines.join("\n");
}
