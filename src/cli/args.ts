/**
 * Command-line flags for the scripts — the one place they are parsed: `node:util` parseArgs in
 * strict mode, so an unknown flag, a flag missing its value or given one it does not take, and a
 * stray argument are errors; each is said in our words, naming the flag and what is expected
 * (with the flag a typo most likely meant), never Node's parser text. `--help` / `-h` prints the
 * usage.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { closest } from "../base/did-you-mean";
import { errorMessage } from "../base/error-message";

/** Bad command-line input; the message quotes what was wrong. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;
/** The parsed values of `options`, as node:util types them. */
export type FlagValues<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>
>["values"];
const HELP = { help: { type: "boolean", short: "h" } } as const;

/** How a flag is written in a message: `--agent <value>`, `--verbose`. */
function flagText(name: string, o: Options[string]): string {
  return o.type === "string" ? `--${name} <value>` : `--${name}`;
}

/** Node's parser error in our words: which flag, and what is expected. */
function usageError(e: unknown, argv: readonly string[], options: Options, positionals: boolean): UsageError {
  const code = (e as { code?: string }).code;
  const message = errorMessage(e);
  const quoted = /'([^']+)'/.exec(message)?.[1] ?? "";
  const flags = Object.entries(options).map(([n, o]) => flagText(n, o));
  const known = `the flags are: ${flags.join(", ")}`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const written = quoted.split("=")[0]!;
    const meant = closest(written.replace(/^-+/, ""), Object.keys(options));
    return new UsageError(
      `unknown flag "${written}"${meant !== undefined ? ` (did you mean --${meant}?)` : ""}; ${known}`,
    );
  }
  if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
    const name = quoted.replace(/^-+/, "").split(/[ =]/)[0]!;
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
export function parseCommandLine<const O extends Options>(
  argv: readonly string[],
  options: O,
  o: { readonly positionals?: boolean } = {},
): { readonly values: FlagValues<O>; readonly positionals: readonly string[] } | "help" {
  let parsed: { values: Record<string, unknown>; positionals: string[] };
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
  const values = parsed.values;
  if (values.help === true) return "help";
  delete values.help;
  return { values: values as FlagValues<O>, positionals: parsed.positionals };
}

/**
 * Parse `argv` against `options` (plus `--help`). Returns the values, or `"help"` when help was
 * asked for. Throws UsageError naming the flag and what it expects.
 */
export function parseFlags<const O extends Options>(
  argv: readonly string[],
  options: O,
): FlagValues<O> | "help" {
  const r = parseCommandLine(argv, options);
  return r === "help" ? r : r.values;
}

/**
 * The scripts' shared frame: parse flags, print usage on --help (exit 0), print a usage error
 * naming the flag (exit 2), run `main`, and exit with its code; an error from `main` is one
 * line on stderr and exit 1.
 */
export function runScript<const O extends Options>(
  name: string,
  usage: string,
  options: O,
  main: (values: FlagValues<O>) => Promise<number>,
): void {
  let values: FlagValues<O> | "help";
  try {
    values = parseFlags(process.argv.slice(2), options);
  } catch (e) {
    process.stderr.write(`${name}: ${(e as Error).message}\nRun with --help for usage.\n`);
    process.exit(2);
  }
  if (values === "help") {
    process.stdout.write(usage.endsWith("\n") ? usage : `${usage}\n`);
    process.exit(0);
  }
  // A main that throws before its first await is an error line too, not a stack trace.
  Promise.resolve(values)
    .then(main)
    .then(
      (code) => process.exit(code),
      (e: unknown) => {
        process.stderr.write(`${name}: ${errorMessage(e)}\n`);
        process.exit(1);
      },
    );
}
