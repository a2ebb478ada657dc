/**
 * A backup killed midway (a reboot, the OOM killer, SIGKILL) leaves its hidden temporary copy
 * and SQLite's journal of it beside the target. The next backup into that directory, and the
 * next start (the database's own directory), remove what a backup that no longer runs left, and
 * say so; the temporary file of a backup still running is left alone.
 */
import Database from "better-sqlite3";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main as backupScript } from "../../scripts/backup";
import { openDatabase } from "../../src/store/db";
import { tempDir } from "../support/temp-dir";

/** A state database of a few MB (ours: it has the tables a backup checks for). */
function stateDb(dir: string): string {
  const path = join(dir, "agents.db");
  const db = openDatabase(path);
  const insert = db.prepare(
    "INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, is_agent) VALUES ('Mira', '-1', ?, '1', 'Bob', 0, ?, 0)",
  );
  db.transaction(() => {
    for (let i = 1; i <= 3000; i++) insert.run(i, `message ${i} ${"x".repeat(2000)}`);
  })();
  db.close();
  return path;
}

/**
 * A backup in another process, copying one page per step (as slowly as a huge database), killed
 * with SIGKILL once its temporary copy and journal are on disk. Resolves with its pid.
 */
async function killedBackup(source: string, targetDir: string): Promise<number> {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(source)}, { readonly: true });
    const tmp = ${JSON.stringify(targetDir)} + "/.copy.db.tmp-" + process.pid;
    db.backup(tmp, { progress: () => 1 });
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: "ignore" });
  const pid = child.pid!;
  const tmp = join(targetDir, `.copy.db.tmp-${pid}`);
  for (let i = 0; i < 500 && !(existsSync(`${tmp}-journal`) && statSync(tmp).size > 0); i++)
    await new Promise((r) => setTimeout(r, 10));
  const gone = new Promise((r) => child.on("exit", r));
  child.kill("SIGKILL");
  await gone;
  expect(existsSync(tmp), "the killed backup left its copy").toBe(true);
  expect(existsSync(`${tmp}-journal`), "and its journal").toBe(true);
  return pid;
}

const io = (cwd: string) => {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { cwd, env: {}, stdout: (s: string) => void out.push(s), stderr: (s: string) => void err.push(s) },
  };
};

describe("a backup killed midway", () => {
  it("the next backup into that directory removes its temporary copy and journal and says so; a running backup's file is left alone", async () => {
    const dir = tempDir();
    const source = stateDb(dir);
    const backups = tempDir();
    const pid = await killedBackup(source, backups);
    // A backup of this very process (still running) is not touched.
    const running = join(backups, `.other.db.tmp-${process.pid}`);
    writeFileSync(running, "");

    const r = io(dir);
    expect(await backupScript([join(backups, "copy.db"), "--db", source], r.io)).toBe(0);
    const said = r.err.join("");
    expect(said).toMatch(
      new RegExp(
        `^backup: removed what an interrupted backup left \\(process ${pid}, no longer running\\): .*\\.copy\\.db\\.tmp-${pid}.*\\.copy\\.db\\.tmp-${pid}-journal.* \\(\\d+(\\.\\d)? [KM]B\\)\\n$`,
      ),
    );
    expect(readdirSync(backups).sort()).toEqual([`.other.db.tmp-${process.pid}`, "copy.db"]);
    const copy = new Database(join(backups, "copy.db"), { readonly: true });
    expect(copy.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(3000);
    copy.close();
  });

  it("the next start removes what a dead backup left beside the database, and says so", async () => {
    const dir = tempDir();
    const source = stateDb(dir);
    const pid = await killedBackup(source, dir);
    const told: string[][] = [];
    const db = openDatabase(source, { onLeftovers: (removed) => told.push(removed.map((l) => l.file)) });
    db.close();
    expect(told.map((files) => [...files].sort())).toEqual([
      [join(dir, `.copy.db.tmp-${pid}`), join(dir, `.copy.db.tmp-${pid}-journal`)].sort(),
    ]);
    expect(readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });
});
