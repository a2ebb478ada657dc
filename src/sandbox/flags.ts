/**
 * The sandbox's flags, one list for `npm run sandbox` and `npm start` (which opens the sandbox
 * when no account has a session): every sandbox flag works through either. Without a model
 * configured the offline echo planner answers (labelled "not from a model"); `--dry` prints the
 * request that would be sent instead. Loaded without the sandbox itself (nothing heavy here).
 */
import type { SandboxOptions } from "./repl";

/** The flags (node:util parseArgs options) the sandbox takes besides --agent. */
export const SANDBOX_FLAGS = {
  verbose: { type: "boolean" },
  dry: { type: "boolean" },
  echo: { type: "boolean" },
  json: { type: "boolean" },
  db: { type: "string" },
} as const;

/** The usage lines of {@link SANDBOX_FLAGS}. */
export const SANDBOX_FLAGS_USAGE = `  --verbose        print the planner's envelopes and plans, and task transitions
  --dry            without a model: print the request that would be sent and answer nothing
                   (instead of the offline echo planner's canned plans)
  --json           with --dry: print each request as its exact JSON body (default: readable text)
  --db <file>      keep the database in this file (default: a fresh temporary one)
  --echo           the default without a model, kept for old command lines: the offline echo
                   planner answers (a 👍, a reply quoting the message, a memory), "not from a model"`;

/** The parsed flags as the sandbox's options: echo unless --dry (--json alone implies --dry). */
export function sandboxOptions(flags: {
  readonly verbose?: boolean | undefined;
  readonly dry?: boolean | undefined;
  readonly echo?: boolean | undefined;
  readonly json?: boolean | undefined;
  readonly db?: string | undefined;
}): Pick<SandboxOptions, "verbose" | "echo" | "json" | "dbPath"> {
  if (flags.dry && flags.echo) throw new Error("--dry and --echo contradict each other: give one");
  const dry = flags.dry === true || flags.json === true;
  return {
    verbose: flags.verbose ?? false,
    echo: !dry,
    json: flags.json ?? false,
    ...(flags.db !== undefined ? { dbPath: flags.db } : {}),
  };
}
