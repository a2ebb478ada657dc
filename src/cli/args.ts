/**
 * The scripts' shared frame: flags parsed by command-line.js (the one parser, scripts/build.mjs
 * uses it too), `--help` / `-h` prints the usage, a usage error is one line naming the flag.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ParseArgsConfig } from "node:util";
import { errorMessage } from "../base/error-message";
import { parseCommandLine, type FlagValues } from "./command-line";

export { UsageError, type FlagValues } from "./command-line";

type Options = NonNullable<ParseArgsConfig["options"]>;

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

/**
 * A path as a script prints it: relative to the working directory when it lies inside it
 * (`agents/`, `sessions/Mira.session`), so messages name what the operator typed or configured,
 * not the machine's absolute layout; a path outside is printed as it is.
 */
export function shownPath(cwd: string, path: string): string {
  const r = relative(cwd, resolve(cwd, path));
  return r === "" ? "." : r.startsWith("..") || isAbsolute(r) ? path : r;
}
