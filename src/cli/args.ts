/**
 * Command-line flags for the scripts: `node:util` parseArgs in strict mode, so an unknown flag,
 * a flag missing its value or a stray argument is an error that names it; `--help` / `-h`
 * prints the usage.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
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

/**
 * Parse `argv` against `options` (plus `--help`). Returns the values, or `"help"` when help was
 * asked for. Throws UsageError for anything parseArgs rejects.
 */
export function parseFlags<const O extends Options>(
  argv: readonly string[],
  options: O,
): FlagValues<O> | "help" {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({
      args: [...argv],
      options: { ...options, ...HELP },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
  if (values.help === true) return "help";
  delete values.help;
  return values as FlagValues<O>;
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
