import { copyFileSync, existsSync } from "node:fs";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { Harness } from "../support/harness";
import { until } from "../support/wait";

/**
 * A message nobody answers is stored with the channel's pts that covers it in one commit: the
 * row and the pts reach the file together or not at all. So a lone message costs one commit
 * (not one for its row and one, a turn later, for its pts), and a process killed before that
 * commit loses both: the next start asks the difference from the older pts and stores the
 * message then — never a pts in the file ahead of a message that is not.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** What another connection sees in the file: the group's stored texts and its stored pts. */
function fileView(path: string, chatId: string): { texts: string[]; pts: number | undefined } {
  const db = new Database(path, { readonly: true });
  try {
    const texts = db
      .prepare("SELECT text FROM messages WHERE chat_id = ? AND is_agent = 0 ORDER BY message_id")
      .pluck()
      .all(chatId) as string[];
    const pts = db.prepare("SELECT pts FROM update_state WHERE box = ?").pluck().get(chatId) as
      number | undefined;
    return { texts, pts };
  } finally {
    db.close();
  }
}

describe("a message's pts is written in the commit that holds the message", () => {
  it("a lone message nobody answers costs one commit, its row and its pts together", async () => {
    h = await Harness.start();
    const hh = h;
    const chatId = hh.group.peerId;
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "first" });
    await until(() => {
      const v = fileView(hh.dbPath, chatId);
      return v.texts.length === 1 && v.pts !== undefined;
    });
    // Count the commits of the persona's connection from here on.
    let commits = 0;
    const exec = hh.db.exec.bind(hh.db);
    hh.db.exec = ((sql: string) => {
      if (sql === "COMMIT") commits++;
      return exec(sql);
    }) as typeof hh.db.exec;
    const texts = ["lunch?", "sure thing", "see you at noon", "ok", "who's coming on friday"];
    let pts = fileView(hh.dbPath, chatId).pts ?? 0;
    for (const text of texts) {
      await hh.emu.post({ chat: hh.group, from: hh.bob, text });
      // Each message alone: its row and the pts covering it (one more) are in the file before the next.
      await until(() => {
        const v = fileView(hh.dbPath, chatId);
        return v.texts.at(-1) === text && v.pts === pts + 1;
      });
      pts++;
    }
    expect(fileView(hh.dbPath, chatId).texts).toEqual(["first", ...texts]);
    expect(commits).toBe(texts.length);
  });

  it("a process killed at the commit that holds a message loses it nowhere: the next start stores it, once", async () => {
    h = await Harness.start();
    const hh = h;
    const chatId = hh.group.peerId;
    await hh.emu.post({ chat: hh.group, from: hh.alice, text: "before" });
    await until(() => {
      const v = fileView(hh.dbPath, chatId);
      return v.texts.length === 1 && v.pts !== undefined;
    });
    const before = fileView(hh.dbPath, chatId).pts;
    expect(before).toBeGreaterThan(0);

    // The file as a process killed just before the next COMMIT leaves it: copied then (the
    // write-ahead log's uncommitted frames, if any, are ignored when it is opened again).
    const image = `${hh.dbPath}.killed`;
    let imaged = false;
    let inCommit: { rows: number; pts: number } | undefined;
    const exec = hh.db.exec.bind(hh.db);
    hh.db.exec = ((sql: string) => {
      if (sql === "COMMIT" && !imaged) {
        imaged = true;
        // What the commit about to be made holds: the message's row, and the pts that covers it.
        inCommit = {
          rows: hh.db
            .prepare("SELECT count(*) FROM messages WHERE text = 'in the open commit'")
            .pluck()
            .get() as number,
          pts: hh.db.prepare("SELECT pts FROM update_state WHERE box = ?").pluck().get(chatId) as number,
        };
        copyFileSync(hh.dbPath, image);
        if (existsSync(`${hh.dbPath}-wal`)) copyFileSync(`${hh.dbPath}-wal`, `${image}-wal`);
      }
      return exec(sql);
    }) as typeof hh.db.exec;
    await hh.emu.post({ chat: hh.group, from: hh.bob, text: "in the open commit" });
    await until(() => imaged);
    expect(inCommit).toEqual({ rows: 1, pts: before! + 1 });
    hh.crash();
    expect(fileView(image, chatId)).toEqual({ texts: ["before"], pts: before });

    await hh.emu.post({ chat: hh.group, from: hh.carol, text: "while down" });
    hh.dbPath = image; // the next start finds what the killed process left
    hh.boot();
    await hh.runtime.caughtUp;
    await until(() => fileView(image, chatId).texts.length >= 3);
    await hh.pass(5_000);
    expect(fileView(image, chatId).texts).toEqual(["before", "in the open commit", "while down"]);
  });
});
