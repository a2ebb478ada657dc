/**
 * `.env`: KEY=value lines in the working directory, read with Node's own parser. Variables set
 * in the environment win over the file (as with `process.loadEnvFile`).
 */
import { existsSync, readFileSync } from "node:fs";
import { parseEnv } from "node:util";

/** The environment with `file`'s variables added under it (missing file: the environment). */
export function withDotEnv(env: NodeJS.ProcessEnv, file: string): NodeJS.ProcessEnv {
  if (!existsSync(file)) return env;
  return { ...parseEnv(readFileSync(file, "utf8")), ...env };
}

/** Loads `.env` (if present) into process.env, for the entry scripts. */
export function loadDotEnv(file = ".env"): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
