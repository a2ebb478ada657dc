/**
 * Upgrades are guarded: before a migration changes the schema of a database that holds data,
 * `npm start` keeps a copy of it as it was beside it, named by its schema version (the older
 * program can open that copy), says how to go back, and keeps only the last few copies.
 */
import Database from "better-sqlite3";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatSize } from "../../src/base/media-descriptor";
import { openDatabase } from "../../src/store/db";
import { migrations } from "../../src/store/migrations";
import { describeMigrationBackup, type MigrationBackup } from "../../src/store/migration-backup";
import { tempDir } from "../support/temp-dir";

/** A database as version `v` of the program left it, with one message. */
function olderDatabase(path: string, v: number): void {
  const db = new Database(path);
  for (let i = 0; i < v; i++) db.exec(migrations[i]!);
  db.pragma(`user_version = ${v}`);
  db.prepare(
    "INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, is_agent) VALUES ('Mira', '-1', 1, '2', 'Bob', 0, 'carol, the keys are under the mat', 0)",
  ).run();
  db.close();
}

describe("an upgrade that changes the schema", () => {
  it("keeps a copy of the database as it was, beside it, named by its schema version, and says how to go back", () => {
    const dir = tempDir();
    const path = join(dir, "agents.db");
    olderDatabase(path, 19);
    const kept: MigrationBackup[] = [];
    const db = openDatabase(path, { backupBeforeMigration: (b) => kept.push(b) });
    expect(db.pragma("user_version", { simple: true })).toBe(migrations.length);
    db.close();

    const copy = join(dir, "agents.db.schema-19.bak");
    expect(kept).toEqual([
      { file: copy, from: 19, to: migrations.length, bytes: statSync(copy).size, removed: [] },
    ]);
    expect(statSync(copy).mode & 0o777).toBe(0o600);
    // The copy is the database as the older program left it: its schema version, its rows.
    const old = new Database(copy, { readonly: true });
    expect(old.pragma("user_version", { simple: true })).toBe(19);
    expect(old.prepare("SELECT text FROM messages").pluck().all()).toEqual([
      "carol, the keys are under the mat",
    ]);
    old.close();
    expect(describeMigrationBackup(path, kept[0]!)).toBe(
      `${path}: upgrading its schema from version 19 to ${migrations.length}; a copy of it as it was is kept in ${copy} (${formatSize(kept[0]!.bytes)}). ` +
        `To go back to the previous version of the program: stop it, put ${copy} in place of ${path}, remove ${path}-wal and ${path}-shm, and start the previous version`,
    );

    // Opened again at the current schema: nothing to migrate, no new copy.
    const again: MigrationBackup[] = [];
    openDatabase(path, { backupBeforeMigration: (b) => again.push(b) }).close();
    expect(again).toEqual([]);
    expect(readdirSync(dir).filter((n) => n.includes(".bak"))).toEqual(["agents.db.schema-19.bak"]);
  });

  it("keeps only the last three copies; a new database is not copied", () => {
    const dir = tempDir();
    const path = join(dir, "agents.db");
    for (const v of [12, 14, 16]) writeFileSync(join(dir, `agents.db.schema-${v}.bak`), "older copy");
    writeFileSync(join(dir, "other.db.schema-3.bak"), "another database's");
    olderDatabase(path, 19);
    const kept: MigrationBackup[] = [];
    openDatabase(path, { backupBeforeMigration: (b) => kept.push(b) }).close();
    expect(kept[0]!.removed).toEqual([join(dir, "agents.db.schema-12.bak")]);
    expect(
      readdirSync(dir)
        .filter((n) => n.endsWith(".bak"))
        .sort(),
    ).toEqual([
      "agents.db.schema-14.bak",
      "agents.db.schema-16.bak",
      "agents.db.schema-19.bak",
      "other.db.schema-3.bak",
    ]);

    const fresh = join(tempDir(), "new.db");
    const none: MigrationBackup[] = [];
    openDatabase(fresh, { backupBeforeMigration: (b) => none.push(b) }).close();
    expect(none).toEqual([]);
    expect(existsSync(`${fresh}.schema-0.bak`)).toBe(false);
  });
});
