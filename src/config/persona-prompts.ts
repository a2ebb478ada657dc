/**
 * Role prompts: reusable prompt texts a persona file pulls in by name under `# Role Prompt`.
 * Each name X is looked up as `<dir>/X.md` in the given directories, first hit wins, so a
 * persona's own `agents/<Name>/prompts/` can override the shared `agents/prompts/`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError, errorCode } from "./config-error";
import { listItems, quoteValue, type ValueSource } from "./persona-values";

/** A loaded role prompt. */
export interface RolePrompt {
  readonly name: string;
  readonly text: string;
}

// The name becomes a file name: letters, digits, spaces, `_ . -`; no path separators, no `..`.
const promptNameSchema = z
  .string()
  .max(100)
  .regex(/^[\p{L}\p{N}_][\p{L}\p{N} _.-]*$/u)
  .refine((s) => !s.includes(".."));

/**
 * The largest persona file and role-prompt file, in bytes. Their text is the system instruction of
 * every Gemini call the persona makes, so a stray 5 MB paste would cost every message (or fail
 * every call); 64 KiB is about 16,000 tokens, far more than any persona needs.
 */
const MAX_PERSONA_FILE_BYTES = 64 * 1024;

/** The size problem of a file's bytes, or undefined. */
export function tooLarge(bytes: Uint8Array): string | undefined {
  if (bytes.length <= MAX_PERSONA_FILE_BYTES) return undefined;
  const kib = (n: number) => `${Math.ceil(n / 1024).toLocaleString("en-US")} KiB`;
  return `${kib(bytes.length)} is over the ${kib(MAX_PERSONA_FILE_BYTES)} limit (its text goes with every Gemini call); shorten it`;
}

/** Decodes UTF-8 strictly: a mis-encoded prompt should fail, not reach the model as mojibake. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** Reads `<dir>/<name>.md` from the first directory that has it; null when none has. */
function readPrompt(src: ValueSource, name: string, dirs: readonly string[]): string | null {
  for (const dir of dirs) {
    const path = join(dir, `${name}.md`);
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (e) {
      const code = errorCode(e);
      if (code === "ENOENT" || code === "ENOTDIR") continue;
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `cannot read prompt "${name}" at ${path} (${code})`,
      });
    }
    const size = tooLarge(bytes);
    if (size)
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `prompt "${name}" at ${path}: ${size}`,
      });
    const text = decodeUtf8(bytes);
    if (text === null) {
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `prompt "${name}" at ${path} is not valid UTF-8`,
      });
    }
    const trimmed = text.trim();
    if (trimmed === "")
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `prompt "${name}" at ${path} is empty`,
      });
    return trimmed;
  }
  return null;
}

/** `# Role Prompt`: one prompt name per line, each loaded from `dirs` in order. */
export function loadRolePrompts(src: ValueSource, raw: string, dirs: readonly string[]): RolePrompt[] {
  const out: RolePrompt[] = [];
  for (const item of listItems(raw)) {
    // "Teacher.md" means the prompt Teacher; people copy the file name.
    const name = item.replace(/\.md$/i, "");
    if (!promptNameSchema.safeParse(name).success) {
      const problem = `bad prompt name ${quoteValue(name)} (expected a file name without extension or slashes)`;
      throw new ConfigError({ file: src.file, field: src.field, problem });
    }
    if (out.some((p) => p.name === name)) {
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `prompt "${name}" is listed twice`,
      });
    }
    const text = readPrompt(src, name, dirs);
    if (text === null) {
      const looked = dirs.map((d) => join(d, `${name}.md`)).join(", ");
      const problem = `prompt "${name}" not found (looked in ${looked || "no directories"})`;
      throw new ConfigError({ file: src.file, field: src.field, problem });
    }
    out.push({ name, text });
  }
  return out;
}
