/**
 * A file or directory on this machine that the operator must fix before anything runs: one line
 * naming the path, what is wrong and what to do. The scripts print it as is and exit 1; nothing
 * has been touched by then.
 */
export class LocalFileError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
    readonly remedy: string,
  ) {
    super(`${path}: ${problem}; ${remedy}`);
    this.name = "LocalFileError";
  }
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
  return e instanceof Error ? e.message.split("\n")[0]! : String(e);
}
