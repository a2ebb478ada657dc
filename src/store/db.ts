import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { migrations } from "./migrations";

/** The project's SQLite handle type (better-sqlite3). */
export type Db = Database.Database;

/**
 * Open (or create) the state database, set the pragmas we rely on and apply pending migrations.
 * WAL + synchronous=NORMAL: a crash can lose at most the last transactions since the last
 * checkpoint-less fsync, never corrupt the file; that is the trade the task engine is built for.
 */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 5000");
  migrate(db);
  return db;
}

/** Apply every migration newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(
      `state database schema version ${current} is newer than this program knows (${migrations.length}); refusing to touch it`,
    );
  }
  for (let v = current; v < migrations.length; v++) {
    const step = migrations[v]!;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
