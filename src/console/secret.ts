/**
 * The operator console's persistent secret: generated once into the state directory
 * (`console-token` beside the database, mode 0600) and read back at every start, so a signed-in
 * page (its session token, kept in the page's own storage and sent as a header, is signed with a
 * key derived from the secret — auth.ts) and a bookmark keep working across restarts.
 * `HTTP_TOKEN`, when set, overrides it (serve.ts). Delete the file to sign every page out: the
 * next start makes a new one.
 */
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/config-error";
import { errorMessage } from "../base/error-message";

/** The file's name in the state directory. */
const CONSOLE_SECRET_FILE = "console-token";

/** A fresh random console token (when neither HTTP_TOKEN nor a kept secret gives one). */
export function newConsoleToken(): string {
  return randomBytes(24).toString("base64url");
}

/** Shortest secret read back from the file; a shorter one (cut, edited) is refused. */
const MIN_CHARS = 16;

/**
 * The console's secret kept in `stateDir`: read, or made (0600, written whole with O_EXCL so two
 * processes starting at once cannot each write their own). `created`: made now.
 */
export function consoleSecret(stateDir: string): {
  readonly token: string;
  readonly file: string;
  readonly created: boolean;
} {
  const file = join(stateDir, CONSOLE_SECRET_FILE);
  const read = (): string | undefined => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new ConfigError({
        file,
        problem: `cannot be read (${errorMessage(e)})`,
        fix: "make it readable by the user running the personas, or delete it (every browser then signs in again)",
      });
    }
    const token = text.trim();
    if (token.length < MIN_CHARS || /\s/.test(token))
      throw new ConfigError({
        file,
        problem: `does not hold a console secret (one line of at least ${MIN_CHARS} characters)`,
        fix: "delete it: the next start makes a new one (every browser then signs in again)",
      });
    // Kept as narrow as the database beside it (only another user's file refuses that).
    try {
      if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ConfigError({
        file,
        problem: `cannot be made private (mode 0600): ${code === "EPERM" ? "it belongs to another user" : errorMessage(e)}`,
        fix: "run the personas as the user who owns it, chown it to the user running them, or delete it (every browser then signs in again)",
      });
    }
    return token;
  };
  const kept = read();
  if (kept !== undefined) return { token: kept, file, created: false };
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const token = newConsoleToken();
  let fd: number;
  try {
    fd = openSync(file, "wx", 0o600);
  } catch (e) {
    // Another process made it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === "EEXIST") {
      const theirs = read();
      if (theirs !== undefined) return { token: theirs, file, created: false };
    }
    throw new ConfigError({
      file,
      problem: `cannot be created (${errorMessage(e)})`,
      fix: "make the state directory writable by the user running the personas, or set HTTP_TOKEN",
    });
  }
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  return { token, file, created: true };
}
