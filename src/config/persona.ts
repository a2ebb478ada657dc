/**
 * Persona files: one Markdown file per persona, `agents/<Name>.md`, one `# Heading` per field.
 * A field's value is the text under its heading up to the next `# ` heading, trimmed.
 *
 * ```md
 * # Agent Name
 * Mira
 * # Agent Instructions
 * You are Mira …
 * # Group Mode
 * strict
 * ```
 *
 * Any problem (unknown or repeated heading, missing or bad value, unreadable file) is an error
 * naming the file and field; `loadPersonas` fails start if any file is bad.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { basename, extname, join } from "node:path";
import { ConfigError, errorCode, fsReason } from "./config-error";
import { decodeUtf8, tooLarge } from "./persona-prompts";
import { parsePersona } from "./persona-parse";
import type { Persona } from "./persona-type";

export type { Persona } from "./persona-type";
export type { GroupMode } from "./persona-values";
export type { PersonaPolicy } from "./persona-policy";
export { parsePersona } from "./persona-parse";
export { WINDOW_ITEMS } from "./persona-fields";

/** The `*.md` files directly in `dir` (links to files count), sorted by name. */
function personaFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = errorCode(e);
    throw new ConfigError({
      file: dir,
      problem: `cannot be read (${code})`,
      message: `cannot read persona directory ${dir} (${code})`,
    });
  }
  return (
    entries
      .filter((e) => extname(e.name).toLowerCase() === ".md")
      // A link is followed; a dangling one is kept so reading it reports the problem loudly.
      .filter(
        (e) =>
          e.isFile() ||
          (e.isSymbolicLink() &&
            statSync(join(dir, e.name), { throwIfNoEntry: false })?.isDirectory() !== true),
      )
      .map((e) => e.name)
      .sort()
  );
}

/** Reads and parses one file; role prompts come from `<dir>/<file stem>/prompts` then `<dir>/prompts`. */
function loadOne(dir: string, entry: string): Persona {
  const file = join(dir, entry);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `cannot be read: ${fsReason(e)}; make it readable by the user running this command`,
    });
  }
  const size = tooLarge(bytes);
  if (size) throw new ConfigError({ file, problem: size });
  const text = decodeUtf8(bytes);
  if (text === null) throw new ConfigError({ file, problem: "not valid UTF-8" });
  const stem = basename(entry, extname(entry));
  return parsePersona(text, { file, promptDirs: [join(dir, stem, "prompts"), join(dir, "prompts")] });
}

/** One persona file `entry` of `dir`, read and checked as at start (a ConfigError naming the file and field when bad). */
export function loadPersonaFile(dir: string, entry: string): Persona {
  return loadOne(dir, entry);
}

/**
 * Loads every `*.md` directly in `dir` (subfolders are for prompts and are not read as personas).
 * Throws a ConfigError listing every failing file when any file is bad, when two files share
 * an Agent Name (case-insensitively), or when there are no persona files at all.
 */
export function loadPersonas(dir: string): Persona[] {
  const entries = personaFiles(dir);
  if (entries.length === 0) {
    throw new ConfigError({
      file: dir,
      problem: "no persona files (*.md)",
      message: `no persona files (*.md) were found in ${dir}`,
    });
  }

  const personas: Persona[] = [];
  const errors: ConfigError[] = [];
  const byName = new Map<string, Persona>();
  for (const entry of entries) {
    try {
      const p = loadOne(dir, entry);
      const other = byName.get(p.name.toLowerCase());
      if (other !== undefined) {
        throw new ConfigError({
          file: p.file,
          field: "Agent Name",
          problem: `duplicate agent name "${p.name}" (also in ${other.file})`,
        });
      }
      byName.set(p.name.toLowerCase(), p);
      personas.push(p);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors.push(e);
    }
  }
  if (errors.length > 0) {
    const list = errors.map((e) => `  - ${e.message}`).join("\n");
    throw new ConfigError({
      file: dir,
      problem: `${errors.length} persona file(s) failed to load`,
      errors,
      message: `${errors.length} persona file(s) in ${dir} failed to load:\n${list}`,
    });
  }
  return personas;
}
