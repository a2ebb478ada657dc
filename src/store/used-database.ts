/**
 * Whether a database file already holds a run's data (the sandbox refuses such a file: each of
 * its runs starts a new emulated Telegram, whose ids would clash with it).
 */
import Database from "better-sqlite3";

/**
 * Rows in the file's `messages` and `update_state` tables (0 for a file without them), read
 * without writing. Throws when the file is not a database SQLite can read.
 */
export function countStoredRows(file: string): number {
  let rows = 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const tables = new Set(
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[],
    );
    for (const t of ["messages", "update_state"])
      if (tables.has(t)) rows += db.prepare(`SELECT count(*) FROM ${t}`).pluck().get() as number;
  } finally {
    db.close();
  }
  return rows;
}
