/**
 * A disk that fills up, for the state database. Where the test may mount (root, or a runner that
 * allows it), it is a real 2 MB tmpfs: `fill()` writes a file until the filesystem says ENOSPC,
 * and SQLite then fails wherever a real full disk fails it — at a statement, at COMMIT when the
 * write-ahead log cannot grow, at a checkpoint. Where mounting is not allowed (CI containers),
 * it is an ordinary temp directory and `fill()` caps the database at the pages it has
 * (`PRAGMA max_page_count`, a per-connection setting of SQLite itself): SQLite's pager then
 * answers SQLITE_FULL ("database or disk is full") to any write that needs a new page — the
 * same error, from the same place in SQLite, that the product meets on a full disk, through
 * the same product code; only COMMIT-time failures are the mount's alone. `SMALL_DISK=limit`
 * forces the fallback (to run both ways on a machine that can mount).
 *
 * Always `dispose()` (after closing the database): it unmounts and removes the directory.
 */
import { execFileSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../../src/store/db";

export interface SmallDisk {
  /** Where the database goes (on the small filesystem, when mounted). */
  readonly dir: string;
  /** `tmpfs`: a real filesystem filled to the last byte; `limit`: SQLite's page limit on the connection. */
  readonly how: "tmpfs" | "limit";
  /** Make the disk full: every write that needs space fails. */
  fill(db: Db): void;
  /** Give the space back. */
  free(db: Db): void;
  /** Unmount (if mounted) and remove the directory. */
  dispose(): void;
}

/** SQLite's default (and largest) max_page_count. */
const NO_PAGE_LIMIT = 4294967294;

export function smallDisk(sizeMb = 2): SmallDisk {
  const dir = mkdtempSync(join(tmpdir(), "userbot-disk-"));
  if (process.env.SMALL_DISK !== "limit" && tryMount(dir, sizeMb)) {
    const filler = join(dir, "filler");
    return {
      dir,
      how: "tmpfs",
      fill() {
        const fd = openSync(filler, "w");
        const chunk = Buffer.alloc(4096, 0xab);
        try {
          for (;;) writeSync(fd, chunk);
        } catch (e) {
          if ((e as { code?: string }).code !== "ENOSPC") throw e;
        } finally {
          closeSync(fd);
        }
      },
      free() {
        unlinkSync(filler);
      },
      dispose() {
        unmount(dir);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  return {
    dir,
    how: "limit",
    fill(db) {
      const pages = db.pragma("page_count", { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
    },
    free(db) {
      db.pragma(`max_page_count = ${NO_PAGE_LIMIT}`);
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function tryMount(dir: string, sizeMb: number): boolean {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m,mode=0700`, "tmpfs", dir], {
      stdio: "ignore",
    });
    return true;
  } catch {
    return false; // not root, no CAP_SYS_ADMIN, no mount(8): the fallback
  }
}

function unmount(dir: string): void {
  try {
    execFileSync("umount", [dir], { stdio: "ignore" });
  } catch {
    // Still busy (a file left open by a failed test): detach it now, it goes when the last file closes.
    execFileSync("umount", ["-l", dir], { stdio: "ignore" });
  }
}
