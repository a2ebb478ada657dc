import type { ParseArgsConfig, parseArgs } from "node:util";

/** Bad command-line input; the message quotes what was wrong. */
export class UsageError extends Error {
  constructor(message: string);
}

type Options = NonNullable<ParseArgsConfig["options"]>;
/** The parsed values of `options`, as node:util types them. */
export type FlagValues<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; strict: true; allowPositionals: false }>
>["values"];

/**
 * Parse `argv` against `options` (plus `--help`), with or without positional arguments. Returns
 * the values and positionals, or `"help"` when help was asked for. Throws UsageError naming the
 * flag and what it expects (command-line.js).
 */
export function parseCommandLine<const O extends Options>(
  argv: readonly string[],
  options: O,
  o?: { readonly positionals?: boolean },
): { readonly values: FlagValues<O>; readonly positionals: readonly string[] } | "help";
