import { describe, expect, it } from "vitest";
import { batchedWrite, closeDatabase, openDatabase, transaction } from "../../src/store/db";
import { migrations } from "../../src/store/migrations";
import { tempDbPath } from "../support/temp-dir";

const insert = (db: ReturnType<typeof openDatabase>, id: number) =>
  db
    .prepare(`INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text) VALUES ('A', 'c', ?, 's', 'n', 0, 't')`)
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
});
