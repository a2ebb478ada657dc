/**
 * Command-line flags for the scripts — the one place they are parsed: `node:util` parseArgs in
 * strict mode, so an unknown flag, a flag missing its value or given one it does not take, and a
 * stray argument are errors; each is said in our words, naming the flag and what is expected
 * (with the flag a typo most likely meant), never Node's parser text. `--help` / `-h` prints the
 * usage.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
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
function parseCommandLine<const O extends Options>(
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

/** What a script reads and writes; tests pass their own. */
export interface ScriptIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  /** Where `.env` is looked for and relative paths start. */
  readonly cwd: string;
}

/** The process's own streams, environment and directory. */
function processIo(): ScriptIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** A script's name, usage text and command line. */
export interface ScriptSpec<O extends Options> {
  readonly name: string;
  readonly usage: string;
  readonly options: O;
  /** Whether it takes arguments besides its flags (default: flags only). */
  readonly positionals?: boolean;
}

/**
 * The scripts' shared frame, as a function tests can call: parse `argv`, print the usage on
 * --help (status 0), a usage error naming the flag (status 2), run `main` and resolve with its
 * status; an error from `main` is one line on stderr (status 1), never a stack trace.
 */
export async function runCommand<const O extends Options>(
  spec: ScriptSpec<O>,
  argv: readonly string[],
  io: Pick<ScriptIo, "stdout" | "stderr">,
  main: (line: {
    readonly values: FlagValues<O>;
    readonly positionals: readonly string[];
  }) => Promise<number>,
): Promise<number> {
  let line: ReturnType<typeof parseCommandLine<O>>;
  try {
    line = parseCommandLine(argv, spec.options, { positionals: spec.positionals === true });
  } catch (e) {
    io.stderr(`${spec.name}: ${errorMessage(e)}\nRun with --help for usage.\n`);
    return 2;
  }
  if (line === "help") {
    io.stdout(spec.usage.endsWith("\n") ? spec.usage : `${spec.usage}\n`);
    return 0;
  }
  try {
    return await main(line);
  } catch (e) {
    io.stderr(`${spec.name}: ${errorMessage(e)}\n`);
    return 1;
  }
}

/**
 * Run a script that takes only flags, as the entry point: {@link runCommand} on the process's
 * command line, then exit with its status.
 */
export function runScript<const O extends Options>(
  name: string,
  usage: string,
  options: O,
  main: (values: FlagValues<O>) => Promise<number>,
): void {
  void runCommand({ name, usage, options }, process.argv.slice(2), processIo(), (line) =>
    main(line.values),
  ).then((code) => process.exit(code));
}

/**
 * Run `command` with the process's command line and streams when the module at `moduleUrl` is the
 * entry point (`npm run …`), not when a test imports it; then exit with its status.
 */
export function runWhenMain(
  moduleUrl: string,
  command: (argv: readonly string[], io: ScriptIo) => Promise<number>,
): void {
  if (!process.argv[1] || moduleUrl !== pathToFileURL(resolve(process.argv[1])).href) return;
  void command(process.argv.slice(2), processIo()).then((code) => process.exit(code));
}
