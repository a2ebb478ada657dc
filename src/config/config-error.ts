/**
 * A file or setting on this machine that the operator must fix before anything runs: a persona
 * file, a curated file, the price table, the session directory, `.env` or the environment. One
 * line names the file (and the field), what is wrong and, when there is one, what to do. The
 * scripts print it as is and exit 1; nothing has been touched by then.
 */
import { errorMessage } from "../base/error-message";

export interface ConfigProblem {
  /** The file as the caller named it (relative paths stay relative), or `environment`. */
  readonly file: string;
  /** The field (a persona heading, a variable) the problem is in; absent for the whole file. */
  readonly field?: string | undefined;
  /** What is wrong, without the file and field prefix. */
  readonly problem: string;
  /** What to do about it, when that is not obvious from the problem. */
  readonly fix?: string | undefined;
}

export class ConfigError extends Error implements ConfigProblem {
  readonly file: string;
  readonly field: string | undefined;
  readonly problem: string;
  readonly fix: string | undefined;
  /** For a directory or the environment: each problem found there, so one run shows every fix. */
  readonly errors: readonly ConfigError[];

  /**
   * The message is `file: field "F": problem; fix` unless `o.message` words it otherwise (a
   * summary over `errors`, or a setting named before its file).
   */
  constructor(o: ConfigProblem & { readonly errors?: readonly ConfigError[]; readonly message?: string }) {
    super(
      o.message ??
        `${o.file}: ${o.field !== undefined ? `field "${o.field}": ` : ""}${o.problem}${o.fix !== undefined ? `; ${o.fix}` : ""}`,
    );
    this.name = "ConfigError";
    this.file = o.file;
    this.field = o.field;
    this.problem = o.problem;
    this.fix = o.fix;
    this.errors = o.errors ?? [];
  }
}

/** The error's code ("ENOENT", "EACCES"…), else the error as text. */
export function errorCode(e: unknown): string {
  return e instanceof Error && "code" in e && typeof e.code === "string" ? e.code : String(e);
}

/** A filesystem error in a few words: "permission denied (EACCES)", "not found (ENOENT)"… */
export function fsReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const words: Record<string, string> = {
    EACCES: "permission denied",
    EPERM: "operation not permitted",
    ENOENT: "not found",
    EISDIR: "is a directory",
    ENOTDIR: "a part of the path is not a directory",
    ELOOP: "too many symbolic links",
    EIO: "input/output error",
  };
  if (code !== undefined) return `${words[code] ?? "cannot be read"} (${code})`;
  return errorMessage(e).split("\n")[0]!;
}
