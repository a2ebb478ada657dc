import Database from "better-sqlite3";
import { existsSync, statSync } from "node:fs";
import { DatabaseFileError } from "./db-errors";

/**
 * A database whose file holds no table while its write-ahead log (`-wal`) is not empty: SQLite
 * could not read the log (its header damaged in a crash, or the file put back without it), so
 * it sees an empty database — and opening it read-write would delete the log on close and
 * start afresh, a first start that fetches nothing of what was missed. Refused, with what to
 * do; both files are left as they are. (Checked on a read-only connection, which never touches
 * the log; only when a non-empty log is there, i.e. after a crash.)
 */
export function refuseUnreadableLog(path: string): void {
  const wal = `${path}-wal`;
  let walBytes: number;
  try {
    walBytes = statSync(wal).size;
  } catch {
    return;
  }
  if (walBytes === 0) return;
  let tables = 0;
  if (existsSync(path) && statSync(path).size > 0) {
    try {
      const ro = new Database(path, { readonly: true, fileMustExist: true });
      try {
        tables = ro.prepare("SELECT count(*) FROM sqlite_master").pluck().get() as number;
      } finally {
        ro.close();
      }
    } catch {
      return; // not readable at all: the ordinary open says why
    }
  }
  if (tables > 0) return;
  throw new DatabaseFileError(
    path,
    `it holds no tables, yet its write-ahead log ${wal} holds ${walBytes} bytes SQLite cannot read (damaged by a crash, or the database was put back without it); starting would count as a first start and never fetch the messages missed meanwhile`,
    `restore the database from a backup (npm run backup makes one), or, to start afresh on purpose, move both ${path} and ${wal} away; both are left as they are`,
    undefined,
  );
}
