/**
 * Files at rest: the database holds every DM the persona ever received, so only its owner may
 * read it, whatever the process's umask. The database file and its companions (`-wal`, `-shm`,
 * and any backup made of it) are 0600; the state directory is 0700.
 *
 * SQLite creates `-wal` and `-shm` with the database file's own permissions, so a database file
 * that is 0600 before SQLite opens it gets 0600 companions; files left wider by an earlier
 * version are narrowed at start, as session files are, and so are copies of a database left in
 * the state directory (a backup made there by hand or by another tool).
 */
import {
  chmodSync,
  closeSync,
  fchmodSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  statSync,
  type Stats,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

/** Mode of the database, its `-wal` and `-shm`, and backups of it. */
const DB_FILE_MODE = 0o600;
/** Mode of the state directory. */
const STATE_DIR_MODE = 0o700;
/** The files SQLite keeps beside a database in WAL mode. */
const DB_COMPANIONS = ["-wal", "-shm"] as const;

/**
 * Narrow one file to 0600 if it exists and grants anything to group or others (reusable for
 * backups of the database). Returns true when its mode was changed.
 */
export function narrowFileMode(file: string): boolean {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile() || (st.mode & 0o777) === DB_FILE_MODE) return false;
  chmodSync(file, DB_FILE_MODE);
  return true;
}

/** Narrow a database file and its `-wal` / `-shm` (those that exist) to 0600. Returns the files changed. */
export function narrowDbFileModes(path: string): string[] {
  return [path, ...DB_COMPANIONS.map((s) => `${path}${s}`)].filter(narrowFileMode);
}

/**
 * Create an empty database file with mode 0600 (the umask cannot widen or narrow it: the mode is
 * set on the open descriptor), so SQLite, which opens an existing file, and its companions
 * inherit it. An existing file is left as it is (see narrowDbFileModes).
 */
export function createDbFile(path: string): void {
  const fd = openSync(path, "a", DB_FILE_MODE);
  try {
    fchmodSync(fd, DB_FILE_MODE);
  } finally {
    closeSync(fd);
  }
}

/**
 * The state directory: created 0700 when missing (whatever the umask), and an existing one
 * narrowed to 0700 when it is a directory of its own — owned by this user, without the sticky
 * bit (a shared temporary directory such as /tmp has it), and neither the working directory nor
 * the home directory (a database put there by `STATE_DB=./x.db` must not lock the folder up).
 * Returns true when an existing directory's mode was changed.
 */
export function secureStateDir(dir: string): boolean {
  const before = statSync(dir, { throwIfNoEntry: false });
  if (!before) {
    mkdirSync(dir, { recursive: true, mode: STATE_DIR_MODE });
    chmodSync(dir, STATE_DIR_MODE);
    return false;
  }
  if (!before.isDirectory() || (before.mode & 0o077) === 0 || !ownStateDir(dir, before)) return false;
  chmodSync(dir, STATE_DIR_MODE);
  return true;
}

/** A directory the state may lock up: this user's, not sticky, neither the working nor the home directory. */
function ownStateDir(dir: string, st: Stats): boolean {
  const own = typeof process.getuid === "function" ? st.uid === process.getuid() : true;
  const sticky = (st.mode & 0o1000) !== 0;
  const abs = resolve(dir);
  return own && !sticky && abs !== resolve(process.cwd()) && abs !== resolve(homedir());
}

/** The first 16 bytes of every SQLite database file. */
const SQLITE_HEADER = Buffer.from("SQLite format 3\0", "latin1");

/**
 * Copies of the database in the state directory (a backup written there by hand, `cp`, the
 * sqlite3 shell or an older tool): every regular file in it that starts like an SQLite database
 * and that group or others may read is narrowed to 0600, when the directory is the state's own
 * (see secureStateDir: a working or home directory holding the database is left alone). Best
 * effort: a file that cannot be read or changed is skipped. Returns the files changed.
 */
export function narrowDbCopies(dir: string): string[] {
  const st = statSync(dir, { throwIfNoEntry: false });
  if (!st?.isDirectory() || !ownStateDir(dir, st)) return [];
  const changed: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isFile()) continue; // symbolic links are not followed
    const file = join(dir, entry.name);
    try {
      if ((statSync(file).mode & 0o077) !== 0 && isSqliteFile(file) && narrowFileMode(file))
        changed.push(file);
    } catch {
      // gone meanwhile, or not ours to read or change
    }
  }
  return changed;
}

function isSqliteFile(file: string): boolean {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(SQLITE_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_HEADER);
  } finally {
    closeSync(fd);
  }
}
