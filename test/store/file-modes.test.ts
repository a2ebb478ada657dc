import { chmodSync, copyFileSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { closeDatabase, openDatabase } from "../../src/store/db";
import { narrowDbFileModes, narrowFileMode } from "../../src/store/file-modes";
import { tempDir } from "../support/temp-dir";

const mode = (p: string) => statSync(p).mode & 0o777;

let umask: number;
beforeEach(() => {
  umask = process.umask(0o022); // the usual umask: new files 644, new directories 755
});
afterEach(() => {
  process.umask(umask);
});

describe("files at rest", () => {
  it("a new state directory is 0700 and the database, its -wal and -shm are 0600 under umask 022", () => {
    const dir = join(tempDir(), "state");
    const path = join(dir, "agents.db");
    const db = openDatabase(path);
    db.prepare("CREATE TABLE IF NOT EXISTS t (x)").run();
    db.prepare("INSERT INTO t VALUES (1)").run();
    expect(existsSync(`${path}-wal`)).toBe(true);
    expect(existsSync(`${path}-shm`)).toBe(true);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path)).toBe(0o600);
    expect(mode(`${path}-wal`)).toBe(0o600);
    expect(mode(`${path}-shm`)).toBe(0o600);
    closeDatabase(db);
  });

  it("narrows a state directory and database files an earlier run left readable by others, and says so", () => {
    const dir = join(tempDir(), "state");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    const path = join(dir, "agents.db");
    closeDatabase(openDatabase(path));
    chmodSync(path, 0o644);
    writeFileSync(`${path}-wal`, "");
    chmodSync(`${path}-wal`, 0o664);
    chmodSync(dir, 0o755);
    const seen: string[] = [];
    const db = openDatabase(path, { onNarrowed: (p) => seen.push(...p) });
    db.prepare("CREATE TABLE IF NOT EXISTS t (x)").run();
    expect([mode(dir), mode(path), mode(`${path}-wal`), mode(`${path}-shm`)]).toEqual([
      0o700, 0o600, 0o600, 0o600,
    ]);
    expect(seen).toEqual(expect.arrayContaining([dir, path, `${path}-wal`]));
    closeDatabase(db);
    // Nothing to narrow the next time: nothing is reported.
    const again: string[] = [];
    closeDatabase(openDatabase(path, { onNarrowed: (p) => again.push(...p) }));
    expect(again).toEqual([]);
  });

  it("copies of the database an earlier run or a hand-made backup left in the state directory readable by others are narrowed at start, and said so; other files stay as they are", () => {
    const dir = join(tempDir(), "state");
    const path = join(dir, "agents.db");
    const db = openDatabase(path);
    db.prepare("CREATE TABLE t (secret)").run();
    db.prepare("INSERT INTO t VALUES ('carol: my door code is 4711')").run();
    closeDatabase(db);
    // `cp` under umask 022, the sqlite3 shell's .backup, a backup tool: 0644, 0664, 0640 (the
    // last one's process runs: a dead backup's temporary file is removed instead).
    const copies = ["agents.db.bak", "agents-2026-11-24.db", `.agents.db.tmp-${process.pid}`].map((n) =>
      join(dir, n),
    );
    for (const [i, copy] of copies.entries()) {
      copyFileSync(path, copy);
      chmodSync(copy, [0o644, 0o664, 0o640][i]!);
    }
    const readOnly = join(dir, "agents-ro.db"); // the owner's read-only copy: nobody else can read it already
    copyFileSync(path, readOnly);
    chmodSync(readOnly, 0o400);
    const notes = join(dir, "README.txt"); // not a database
    writeFileSync(notes, "SQLite formats are described elsewhere");
    chmodSync(notes, 0o644);
    chmodSync(dir, 0o755);

    const seen: string[] = [];
    closeDatabase(openDatabase(path, { onNarrowed: (p) => seen.push(...p) }));
    expect(copies.map(mode)).toEqual([0o600, 0o600, 0o600]);
    expect([mode(readOnly), mode(notes), mode(dir)]).toEqual([0o400, 0o644, 0o700]);
    expect(seen.sort()).toEqual([dir, ...copies].sort());

    // A database in the working directory (STATE_DB=./agents.db): the folder is not the state's
    // own, so a copy beside it is the owner's business and keeps its mode.
    const work = tempDir();
    chmodSync(work, 0o755);
    copyFileSync(path, join(work, "agents.db.bak"));
    chmodSync(join(work, "agents.db.bak"), 0o644);
    const cwd = process.cwd();
    process.chdir(work);
    try {
      closeDatabase(openDatabase("agents.db"));
    } finally {
      process.chdir(cwd);
    }
    expect(mode(join(work, "agents.db.bak"))).toBe(0o644);
  });

  it("a backup of the database is narrowed by the same helper; a folder that is not the state's own is left alone", () => {
    const dir = tempDir();
    const backup = join(dir, "agents.db.backup");
    writeFileSync(backup, "x");
    expect(mode(backup)).toBe(0o644);
    expect(narrowFileMode(backup)).toBe(true);
    expect(mode(backup)).toBe(0o600);
    expect(narrowDbFileModes(join(dir, "missing.db"))).toEqual([]);
    // The working directory holding a database (STATE_DB=./x.db) keeps its mode.
    const work = tempDir();
    chmodSync(work, 0o755);
    const cwd = process.cwd();
    process.chdir(work);
    try {
      closeDatabase(openDatabase("agents.db"));
    } finally {
      process.chdir(cwd);
    }
    expect(mode(work)).toBe(0o755);
    expect(mode(join(work, "agents.db"))).toBe(0o600);
  });
});
