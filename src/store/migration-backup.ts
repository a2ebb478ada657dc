/**
 * Upgrades are guarded: before a migration changes the schema of a database that already holds
 * data, `npm start` keeps a copy of it as it was, beside it, named by the schema version it had
 * (`agents.db.schema-19.bak`) — the older program refuses a database migrated past what it
 * knows, and the copy is the way back. The last {@link KEEP_MIGRATION_BACKUPS} are kept; older
 * ones are removed. The copy is SQLite's `VACUUM INTO` (consistent, compact), written 0600 to a
 * temporary file (named as a backup's, so one a crash leaves is removed at the next start:
 * backup-leftovers.ts), flushed and renamed into place. A copy that cannot be made (a full disk)
 * stops the start before anything is migrated.
 */
import type Database from "better-sqlite3";
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { errorMessage } from "../base/error-message";
import { formatSize } from "../base/media-descriptor";
import { backupTempName } from "./backup-leftovers";

/** How many pre-upgrade copies are kept beside the database. */
const KEEP_MIGRATION_BACKUPS = 3;

/** What was done before an upgrade (for the log line). */
export interface MigrationBackup {
  readonly file: string;
  readonly from: number;
  readonly to: number;
  readonly bytes: number;
  /** Older copies removed (only the last few are kept). */
  readonly removed: readonly string[];
}

/** The copy of `path` as it was at schema version `version`. */
function migrationBackupName(path: string, version: number): string {
  return join(dirname(path), `${basename(path)}.schema-${version}.bak`);
}

/** Copy `db` (at `path`, schema `from`) beside it before it is migrated to `to`. Throws naming what failed. */
export function backupBeforeMigration(
  db: Database.Database,
  path: string,
  from: number,
  to: number,
): MigrationBackup {
  const file = migrationBackupName(path, from);
  const tmp = join(dirname(path), backupTempName(basename(file), process.pid));
  try {
    closeSync(openSync(tmp, "wx", 0o600));
    db.prepare("VACUUM INTO ?").run(tmp);
    const fd = openSync(tmp, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}-journal`, { force: true });
    const pages = db.pragma("page_count", { simple: true }) as number;
    const size = pages * (db.pragma("page_size", { simple: true }) as number);
    throw Object.assign(
      new Error(
        `could not keep a copy of it before upgrading its schema from version ${from} to ${to} (${file}: ${errorMessage(e).split("\n")[0]}); ` +
          `the copy needs about ${formatSize(size)} in ${dirname(path)}`,
        { cause: e },
      ),
      { code: (e as { code?: unknown }).code },
    );
  }
  return { file, from, to, bytes: statSync(file).size, removed: pruneOld(path) };
}

/** Remove all but the newest few pre-upgrade copies of `path`; returns what was removed. */
function pruneOld(path: string): string[] {
  const re = new RegExp(`^${basename(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.schema-(\\d+)\\.bak$`);
  const copies = readdirSync(dirname(path))
    .map((n) => ({ n, v: Number(re.exec(n)?.[1] ?? NaN) }))
    .filter((c) => !Number.isNaN(c.v))
    .sort((a, b) => b.v - a.v);
  const removed: string[] = [];
  for (const c of copies.slice(KEEP_MIGRATION_BACKUPS)) {
    const f = join(dirname(path), c.n);
    rmSync(f, { force: true });
    removed.push(f);
  }
  return removed;
}

/** The log line: what was kept, and how to go back. */
export function describeMigrationBackup(path: string, b: MigrationBackup): string {
  return (
    `${path}: upgrading its schema from version ${b.from} to ${b.to}; a copy of it as it was is kept in ${b.file} (${formatSize(b.bytes)}). ` +
    `To go back to the previous version of the program: stop it, put ${b.file} in place of ${path}, remove ${path}-wal and ${path}-shm, and start the previous version`
  );
}
