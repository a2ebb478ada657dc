import Database from "better-sqlite3";
import { closeSync, copyFileSync, existsSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  batchedWrite,
  closeDatabase,
  committed,
  dbError,
  isBusy,
  onWriteFailure,
  onWriteRecovered,
  openDatabase,
  transaction,
  writeFailing,
  type WriteFailure,
} from "../../src/store/db";
import { migrations } from "../../src/store/migrations";
import { tempDbPath, tempDir } from "../support/temp-dir";

const insert = (db: ReturnType<typeof openDatabase>, id: number) =>
  db
    .prepare(
      `INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text) VALUES ('A', 'c', ?, 's', 'n', 0, 't')`,
    )
    .run(id);
const count = (path: string) => {
  const db = openDatabase(path);
  const n = db.prepare("SELECT count(*) FROM messages").pluck().get();
  db.close();
  return n;
};

describe("state database", () => {
  it("opens with WAL, synchronous=NORMAL, foreign keys, and the latest schema version", () => {
    const db = openDatabase(tempDbPath());
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("synchronous", { simple: true })).toBe(1);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("user_version", { simple: true })).toBe(migrations.length);
    db.close();
  });

  it("refuses a database from a newer version of the program, leaving it untouched", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    db.pragma(`user_version = ${migrations.length + 1}`);
    db.close();
    expect(() => openDatabase(path)).toThrow(/newer than this program knows/);
  });

  it("group-commits batched writes at the end of the turn; a crash before that loses only them", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    batchedWrite(db, () => insert(db, 1));
    await new Promise((r) => setImmediate(r));
    batchedWrite(db, () => insert(db, 2));
    db.close(); // crash before the turn ends
    expect(count(path)).toBe(1);
  });

  it("commits the batch before a durable transaction, and a batch write inside a transaction joins it", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    batchedWrite(db, () => insert(db, 1));
    transaction(db, () => {
      insert(db, 2);
      batchedWrite(db, () => insert(db, 3));
    });
    db.close();
    expect(count(path)).toBe(3);
  });

  it("commits every 256 rows even within one turn, and on a clean close", () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    for (let i = 0; i < 300; i++) batchedWrite(db, () => insert(db, i));
    const copy = openDatabase(path); // another connection sees what is committed
    expect(copy.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(256);
    copy.close();
    closeDatabase(db);
    expect(count(path)).toBe(300);
  });

  it("a transaction begun while another connection holds the write lock fails at once, before any of its work ran", () => {
    const path = tempDbPath();
    const db = openDatabase(path, { busyTimeoutMs: 10 });
    const other = new Database(path);
    other.exec("BEGIN IMMEDIATE");
    let ran = false;
    let err: unknown;
    try {
      transaction(db, () => {
        ran = true;
        insert(db, 1);
      });
    } catch (e) {
      err = e;
    }
    expect(isBusy(err)).toBe(true);
    expect(ran).toBe(false);
    expect(() => batchedWrite(db, () => insert(db, 2))).toThrow(/database is locked/);
    other.exec("ROLLBACK");
    other.close();
    batchedWrite(db, () => insert(db, 3));
    closeDatabase(db);
    expect(count(path)).toBe(1);
  });

  it("every database error names the file and what to do", () => {
    const dir = tempDir();
    // Unable to open: its directory is a file.
    writeFileSync(join(dir, "not-a-dir"), "");
    expect(() => openDatabase(join(dir, "not-a-dir", "agents.db"))).toThrow(
      /not-a-dir\/agents\.db: .*; check that its directory exists and that the user running it may read and write both the file and the directory$/,
    );
    // Damaged: not SQLite at all.
    const damaged = join(dir, "damaged.db");
    writeFileSync(
      damaged,
      "this is not a database, just some text that is long enough to look like a header ".repeat(20),
    );
    expect(() => openDatabase(damaged)).toThrow(
      /damaged\.db: file is not a database .*; the file is damaged or is not this program's database: stop the persona and restore it from the backup/,
    );
    // Locked: another process keeps it for itself.
    const locked = join(dir, "locked.db");
    openDatabase(locked).close();
    const other = new Database(locked);
    other.pragma("locking_mode = EXCLUSIVE");
    other.exec("BEGIN EXCLUSIVE");
    other.prepare("CREATE TABLE t (x)").run();
    expect(() => openDatabase(locked, { busyTimeoutMs: 10 })).toThrow(
      /locked\.db: database is locked .*; another process is using the database/,
    );
    other.exec("ROLLBACK");
    other.close();
    // Every message is one line.
    expect(dbError("x.db", new Error("a\nb")).message.split("\n")).toHaveLength(1);
  });

  it("a full disk (SQLite's SQLITE_FULL) rolls the whole group commit back, tells who listens once per failure, names the file, and is over at the next write that goes through", async () => {
    const path = tempDbPath();
    const db = openDatabase(path);
    const told: WriteFailure[] = [];
    let recovered = 0;
    onWriteFailure(db, (f) => told.push(f));
    onWriteRecovered(db, () => recovered++);
    batchedWrite(db, () => insert(db, 1));
    await new Promise((r) => setImmediate(r));
    batchedWrite(db, () => insert(db, 2));
    const two = committed(db);
    // The file may not grow: SQLite's pager answers SQLITE_FULL to a write that needs a page.
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    let err: unknown;
    try {
      for (let i = 3; i < 500; i++) batchedWrite(db, () => insert(db, i));
    } catch (e) {
      err = e;
    }
    expect(String(err)).toMatch(
      /state\.db: database or disk is full \(SQLITE_FULL\); the disk is full: free some space/,
    );
    await expect(two).rejects.toBe(err);
    expect(told.map((f) => [f.err.code, f.lostBatch, f.first])).toEqual([["SQLITE_FULL", true, true]]);
    expect(writeFailing(db)?.code).toBe("SQLITE_FULL");
    expect(db.inTransaction).toBe(false);
    // Row 2 went with the batch: only row 1 is there.
    expect(db.prepare("SELECT message_id FROM messages").pluck().all()).toEqual([1]);
    expect(() =>
      transaction(db, () => {
        for (let i = 600; i < 1100; i++) insert(db, i);
      }),
    ).toThrow(/SQLITE_FULL/);
    expect(told.map((f) => f.first)).toEqual([true, false]);
    db.pragma("max_page_count = 4294967294");
    transaction(db, () => insert(db, 2));
    expect(recovered).toBe(1);
    expect(writeFailing(db)).toBeUndefined();
    closeDatabase(db);
    expect(count(path)).toBe(2);
  });

  it("refuses a database with no tables beside a write-ahead log it cannot read, saying what to do, and leaves both files as they are", () => {
    const dir = tempDir();
    const live = join(dir, "live.db");
    const db = openDatabase(live);
    db.prepare(
      "INSERT INTO update_state (agent, box, pts, qts, date, seq) VALUES ('Mira', '', 5, 0, 0, 0)",
    ).run();
    // What a crash leaves: the database file (never checkpointed) and its log, as they are on disk.
    const crashed = join(dir, "state.db");
    copyFileSync(live, crashed);
    copyFileSync(`${live}-wal`, `${crashed}-wal`);
    db.close();
    // Its header damaged (a torn write): SQLite cannot read the log and sees an empty database.
    const fd = openSync(`${crashed}-wal`, "r+");
    writeSync(fd, Buffer.alloc(8), 0, 8, 0);
    closeSync(fd);
    const walBytes = statSync(`${crashed}-wal`).size;
    expect(() => openDatabase(crashed)).toThrow(
      /state\.db: it holds no tables, yet its write-ahead log .*state\.db-wal holds \d+ bytes SQLite cannot read .*starting would count as a first start.*; restore the database from a backup .*move both .*state\.db and .*state\.db-wal away/,
    );
    expect(statSync(`${crashed}-wal`).size).toBe(walBytes);
    // A crash with a log SQLite reads is an ordinary start: its rows are there.
    const fine = join(dir, "fine.db");
    const again = openDatabase(join(dir, "again.db"));
    again
      .prepare("INSERT INTO update_state (agent, box, pts, qts, date, seq) VALUES ('Mira', '', 7, 0, 0, 0)")
      .run();
    copyFileSync(join(dir, "again.db"), fine);
    copyFileSync(join(dir, "again.db-wal"), `${fine}-wal`);
    again.close();
    const reopened = openDatabase(fine);
    expect(reopened.prepare("SELECT pts FROM update_state").pluck().get()).toBe(7);
    closeDatabase(reopened);
    expect(existsSync(`${crashed}-wal`)).toBe(true);
  });
});
