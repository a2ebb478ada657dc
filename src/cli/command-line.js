/**
 * Command-line flags for every script — the one place they are parsed, scripts/build.mjs
 * included: `node:util` parseArgs in strict mode, so an unknown flag, a flag missing its value or
 * given one it does not take, and a stray argument are errors; each is said in our words, naming
 * the flag and what is expected (with the flag a typo most likely meant), never Node's parser
 * text.
 *
 * Plain JavaScript (typed by command-line.d.ts) because the build script runs it before anything
 * is compiled; the TypeScript scripts reach it through args.ts.
 */
import { parseArgs } from "node:util";
// eslint-disable-next-line no-restricted-syntax -- plain ES modules run by node name their files
import { closest } from "../base/did-you-mean.js";

/** Bad command-line input; the message quotes what was wrong. */
export class UsageError extends Error {
  constructor(message) {
    super(message);
    this.name = "UsageError";
  }
}

const HELP = { help: { type: "boolean", short: "h" } };

/** How a flag is written in a message: `--agent <value>`, `--verbose`. */
function flagText(name, o) {
  return o.type === "string" ? `--${name} <value>` : `--${name}`;
}

/** Node's parser error in our words: which flag, and what is expected. */
function usageError(e, argv, options, positionals) {
  const code = e?.code;
  const message = e instanceof Error ? e.message : String(e);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  const flags = Object.entries(options).map(([n, o]) => flagText(n, o));
  const known = `the flags are: ${flags.join(", ")}`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const written = quoted.split("=")[0];
    const meant = closest(written.replace(/^-+/, ""), Object.keys(options));
    return new UsageError(
      `unknown flag "${written}"${meant !== undefined ? ` (did you mean --${meant}?)` : ""}; ${known}`,
    );
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = quoted.replace(/^-+/, "").split(/[ =]/)[0];
    const o = options[name];
    if (o?.type === "boolean") {
      const given = argv.find((a) => a.startsWith(`--${name}=`));
      return new UsageError(
        `flag --${name} takes no value${given !== undefined ? ` (got "${given}")` : ""}: write just --${name}`,
      );
    }
    const next = argv[argv.indexOf(`--${name}`) + 1];
    return new UsageError(
      `flag --${name} needs a value: --${name} <value>${next !== undefined ? ` (got the flag "${next}" instead; a value starting with - is written --${name}=<value>)` : ""}`,
    );
  }
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL")
    return new UsageError(
      positionals
        ? `unexpected argument "${quoted}"`
        : `unexpected argument "${quoted}": this command takes only flags (${known})`,
    );
  return new UsageError(message);
}

/**
 * Parse `argv` against `options` (plus `--help`), with or without positional arguments. Returns
 * the values and positionals, or `"help"` when help was asked for. Throws UsageError naming the
 * flag and what it expects.
 */
export function parseCommandLine(argv, options, o = {}) {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { ...options, ...HELP },
      strict: true,
      allowPositionals: o.positionals === true,
    });
  } catch (e) {
    throw usageError(e, argv, { ...options, ...HELP }, o.positionals === true);
  }
  const values = { ...parsed.values };
  if (values.help === true) return "help";
  delete values.help;
  return { values, positionals: parsed.positionals };
}
