/**
 * `.env`: NAME=value lines in the working directory, read with Node's own parser. Variables set
 * in the environment win over the file (as with `process.loadEnvFile`).
 *
 * Node's parser (like the `dotenv` package) never complains: a stray line silently swallows the
 * next variable (`garbage\nBAR=2` defines a variable named "garbage\nBAR"). So each line is
 * checked first — blank, a `#` comment, or `[export ]NAME=value` (a quoted value may run over
 * several lines) — and anything else is an error quoting the line and its number. Node's parser
 * also takes a UTF-8 byte order mark, a tab or a second space after `export`, or blanks around
 * the name as part of the name (`export  X=1` defines " X"): the BOM is dropped and each
 * assignment is rewritten as NAME=value before parsing, so the variable has the name it shows.
 */
import { readFileSync, statSync } from "node:fs";
import { parseEnv } from "node:util";
import { quoteValue } from "./numbers";
import { ConfigError, fsReason } from "./config-error";

const ASSIGNMENT = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/;

/** The text of `file`, or undefined when there is none; a file that exists but cannot be read is an error. */
function readEnvFile(file: string): string | undefined {
  let isDir: boolean;
  try {
    isDir = statSync(file).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError({
      file,
      problem: `cannot be read: ${fsReason(e)}`,
      fix: "fix its permissions, or remove it and set the variables in the environment",
    });
  }
  if (isDir)
    throw new ConfigError({
      file,
      problem: "is a directory, not a file",
      fix: `remove it (or rename it), then put NAME=value lines in a file named ${file}`,
    });
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `cannot be read: ${fsReason(e)}`,
      fix: `make it readable by this user (chmod u+r ${file})`,
    });
  }
}

/**
 * The text with each assignment written NAME=value (no BOM, no `export`, no blanks around the
 * name); throws a ConfigError for the first line that is not blank, a comment or NAME=value.
 */
function normalEnvText(text: string, file: string): string {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue;
    const m = ASSIGNMENT.exec(line);
    if (!m) {
      throw new ConfigError({
        file,
        problem: `line ${i + 1} is not NAME=value: ${quoteValue(line)}`,
        fix: "write it as NAME=value, start it with # to keep it as a comment, or delete it",
      });
    }
    lines[i] = `${m[1]!}=${m[2]!}`;
    // A quoted value may continue on the next lines, up to its closing quote.
    const value = m[2]!.trim();
    const quote = value[0];
    if (quote === '"' || quote === "'" || quote === "`") {
      if (value.length > 1 && value.slice(1).includes(quote)) continue;
      let j = i + 1;
      while (j < lines.length && !lines[j]!.includes(quote)) j++;
      if (j >= lines.length)
        throw new ConfigError({
          file,
          problem: `line ${i + 1}: the value's ${quote} is never closed`,
          fix: `close the quote, or remove it`,
        });
      i = j;
    }
  }
  return lines.join("\n");
}

/** The variables of `file` (none when it does not exist). */
function readDotEnv(file: string): Record<string, string> {
  const text = readEnvFile(file);
  if (text === undefined) return {};
  return parseEnv(normalEnvText(text, file)) as Record<string, string>;
}

/** The environment with `file`'s variables added under it (missing file: the environment). */
export function withDotEnv(env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  return { ...readDotEnv(file), ...env };
}

/** Loads `.env` (if present) into process.env, under what is already set, for the entry scripts. */
export function loadDotEnv(file = ".env"): void {
  for (const [name, value] of Object.entries(readDotEnv(file))) {
    if (process.env[name] === undefined) process.env[name] = value;
  }
}
