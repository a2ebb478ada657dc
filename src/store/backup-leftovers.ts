/**
 * What a backup killed midway (a reboot, the OOM killer, SIGKILL) leaves beside its target: its
 * hidden temporary copy `.<target>.tmp-<pid>` and SQLite's rollback journal of it
 * (`…-journal`), together as large as the database. store/backup.ts never leaves them on a
 * failure it sees; a killed one cannot clean up, so the next backup into that directory, and
 * every start (the database's own directory), removes those whose process no longer runs —
 * and says what it removed. A temporary file of a backup still running (its process alive) is
 * left alone.
 */
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { formatSize } from "../base/media-descriptor";

/** `.name.tmp-<pid>` and `.name.tmp-<pid>-journal`, as store/backup.ts names them. */
const LEFTOVER = /^\.(.+)\.tmp-(\d+)(-journal)?$/;

export interface Leftover {
  readonly file: string;
  readonly bytes: number;
  readonly pid: number;
}

/** The temporary file of a backup of `target` made by process `pid`. */
export function backupTempName(target: string, pid: number): string {
  return `.${target}.tmp-${pid}`;
}

/** True while process `pid` runs (on this machine). */
function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM"; // someone else's process: it runs
  }
}

/**
 * Remove from `dir` what backups that no longer run left (regular files only; links are not
 * followed). Returns what was removed; a directory that cannot be read gives nothing.
 */
export function removeDeadBackupLeftovers(dir: string): Leftover[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const removed: Leftover[] = [];
  for (const name of names) {
    const m = LEFTOVER.exec(name);
    if (!m) continue;
    const pid = Number(m[2]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || alive(pid)) continue;
    const file = join(dir, name);
    try {
      const st = lstatSync(file);
      if (!st.isFile()) continue;
      rmSync(file);
      removed.push({ file, bytes: st.size, pid });
    } catch {
      // gone meanwhile, or not ours to remove: left as it is
    }
  }
  return removed;
}

/** One sentence for the operator: what was removed, and how much space it gave back. */
export function describeLeftovers(removed: readonly Leftover[]): string {
  const bytes = removed.reduce((n, l) => n + l.bytes, 0);
  const pids = [...new Set(removed.map((l) => l.pid))];
  return (
    `removed what an interrupted backup left (process${pids.length === 1 ? "" : "es"} ${pids.join(", ")}, no longer running): ` +
    `${removed.map((l) => l.file).join(", ")} (${formatSize(bytes)})`
  );
}
