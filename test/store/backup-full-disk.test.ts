/**
 * A backup whose target's disk has no room for the copy names the target's directory, its
 * free space and what the copy needs — not only "database or disk is full" — and leaves nothing
 * behind. Needs a small filesystem: a real tmpfs, where this process may mount one (root);
 * skipped, saying why, elsewhere.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main as backupScript } from "../../scripts/backup";
import { openDatabase } from "../../src/store/db";
import { tempDir } from "../support/temp-dir";

const mounted: string[] = [];
afterAll(() => {
  for (const d of mounted.splice(0)) {
    execFileSync("umount", ["-l", d], { stdio: "ignore" });
    rmSync(d, { recursive: true, force: true });
  }
});

/** A 1 MB tmpfs, or undefined where this process may not mount one. */
function smallTmpfs(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const d = mkdtempSync(join(tmpdir(), "userbot-backup-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", d], { stdio: "ignore" });
  } catch {
    rmSync(d, { recursive: true, force: true });
    return undefined;
  }
  mounted.push(d);
  return d;
}

const disk = smallTmpfs();

describe.skipIf(disk === undefined)(
  `a backup onto a full disk${disk === undefined ? " (skipped: this process may not mount a tmpfs; it needs root)" : ""}`,
  () => {
    it("names the target, the free space on its disk and what the copy needs; nothing is left there", async () => {
      const dir = tempDir();
      const source = join(dir, "agents.db");
      const db = openDatabase(source);
      const insert = db.prepare(
        "INSERT INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, is_agent) VALUES ('Mira', '-1', ?, '1', 'Bob', 0, ?, 0)",
      );
      db.transaction(() => {
        for (let i = 1; i <= 1500; i++) insert.run(i, `message ${i} ${"x".repeat(2000)}`);
      })();
      db.close();
      const err: string[] = [];
      const target = join(disk!, "copy.db");
      const status = await backupScript([target, "--db", source], {
        cwd: dir,
        env: {},
        stdout: () => undefined,
        stderr: (s) => void err.push(s),
      });
      expect(status).toBe(1);
      expect(err.join("")).toMatch(
        new RegExp(
          `^backup: backup of ${source.replace(/[.]/g, "\\.")} to ${target.replace(/[.]/g, "\\.")} failed: the disk of ${disk!.replace(/[.]/g, "\\.")} is full \\(\\d+(\\.\\d)? (B|KB|MB) free; the copy needs about \\d+(\\.\\d)? MB\\); free some space there or name a target on another disk\\n$`,
        ),
      );
      expect(existsSync(target)).toBe(false);
      expect(readdirSync(disk!)).toEqual([]);
    });
  },
);
