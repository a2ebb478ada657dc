import { errorMessage } from "../base/error-message";

/** SQLite's "another connection holds the lock" (SQLITE_BUSY*, SQLITE_LOCKED*): wait and retry. */
export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Codes of a storage that cannot take a write now: a full disk, an I/O error, a read-only file or filesystem. */
const STORAGE_CODES = ["SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN"];
const STORAGE_ERRNOS = new Set(["ENOSPC", "EDQUOT", "EIO", "EROFS"]);

/**
 * The storage failed a write (SQLITE_FULL, SQLITE_IOERR*, SQLITE_READONLY*, SQLITE_CANTOPEN*, or
 * the filesystem's ENOSPC, EDQUOT, EIO, EROFS): the work was rolled back, and it is waited for
 * like a busy database — it may work once space is freed or the filesystem is writable again.
 */
export function isStorageFailure(e: unknown): boolean {
  const code = (e as { code?: unknown } | undefined)?.code;
  if (typeof code !== "string") return false;
  return STORAGE_ERRNOS.has(code) || STORAGE_CODES.some((c) => code.startsWith(c));
}

/** A write that must wait and run again, whole: the database is busy, or its storage failed (see above). */
export function mustWait(e: unknown): boolean {
  return isBusy(e) || isStorageFailure(e);
}

/** A database error with the file it is about and what the operator can do about it. */
export class DatabaseFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
    readonly remedy: string,
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super(`${file}: ${detail}; ${remedy}`, options);
    this.name = "DatabaseFileError";
  }
}

/**
 * An error for a log line: a database error (SQLite's, or one naming its file already) as one
 * line naming `file` and the remedy (no stack trace); anything else as it is (its stack kept).
 */
export function describeDbFailure(err: unknown, file: string | undefined): unknown {
  const sqlite = String((err as { code?: unknown } | undefined)?.code ?? "").startsWith("SQLITE_");
  return err instanceof DatabaseFileError || sqlite ? dbError(file ?? "the database", err).message : err;
}

/** `e` (from SQLite or the filesystem) as a DatabaseFileError naming `file` and the likely remedy. */
export function dbError(file: string, e: unknown): DatabaseFileError {
  if (e instanceof DatabaseFileError) return e;
  const code = (e as { code?: unknown } | undefined)?.code;
  const c = typeof code === "string" ? code : undefined;
  const message = errorMessage(e).split("\n")[0]!;
  const remedy = isBusy(e)
    ? "another process is using the database (a second npm start with the same STATE_DB, a backup, an sqlite3 shell): stop it, or give this one its own STATE_DB"
    : c?.startsWith("SQLITE_CORRUPT") || c === "SQLITE_NOTADB" || /malformed|not a database/i.test(message)
      ? "the file is damaged or is not this program's database: stop the persona and restore it from the backup (or move it away to start afresh)"
      : c?.startsWith("SQLITE_CANTOPEN") ||
          c?.startsWith("SQLITE_READONLY") ||
          c?.startsWith("SQLITE_PERM") ||
          c === "EACCES" ||
          c === "EPERM" ||
          c === "EROFS" ||
          c === "ENOTDIR" ||
          c === "EEXIST" ||
          c === "EISDIR"
        ? "check that its directory exists and that the user running it may read and write both the file and the directory"
        : c?.startsWith("SQLITE_FULL") || c === "ENOSPC"
          ? "the disk is full: free some space"
          : c?.startsWith("SQLITE_IOERR")
            ? "the disk failed to read or write: check the disk, then restore the file from the backup if it is damaged"
            : "see the message; the file is left as it was";
  return new DatabaseFileError(file, `${message}${c && !message.includes(c) ? ` (${c})` : ""}`, remedy, c, {
    cause: e,
  });
}
