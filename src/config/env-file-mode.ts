/**
 * `.env` holds the Telegram API hash and the Gemini key: only its owner should read it. Checked at
 * every script's start, as session files are (telegram/connection/client.ts), before it is read:
 *
 * - ours, and group or others may read it → narrowed to 0600, and the caller says so in one line;
 * - another user's, and *every* user may read it → refused (we cannot narrow it): one line naming
 *   the mode and the fix;
 * - another user's, readable by its group only → left as is (the owner chose that group: e.g. a
 *   root-owned file 0640 for the service's group);
 * - absent → nothing (the variables come from the environment).
 *
 * Kept apart from dotenv.ts (which parses the file) so the two change independently.
 */
import { chmodSync, statSync } from "node:fs";
import { ConfigError, fsReason } from "./config-error";

const PRIVATE_MODE = 0o600;

/** What `secureDotEnv` did: nothing to do, or narrowed (with the mode it had). */
export type DotEnvMode =
  | { readonly kind: "absent" | "private" | "group-of-owner" }
  | { readonly kind: "narrowed"; readonly was: number };

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/** Check `file`'s mode (see the module comment); throws a ConfigError when it must be refused. */
export function secureDotEnv(file: string): DotEnvMode {
  let st;
  try {
    st = statSync(file, { throwIfNoEntry: false });
  } catch {
    st = undefined; // a loop of links, no access: dotenv.ts names it when it reads the file
  }
  // Absent, or not a plain file: dotenv.ts says what is wrong with it when it reads it.
  if (!st?.isFile()) return { kind: "absent" };
  const mode = st.mode & 0o777;
  if ((mode & 0o077) === 0) return { kind: "private" };
  const ours = typeof process.getuid !== "function" || st.uid === process.getuid();
  if (!ours) {
    if ((mode & 0o007) === 0) return { kind: "group-of-owner" };
    throw new ConfigError({
      file,
      problem: `every user of this machine can read it (mode ${octal(mode)}), and it belongs to another user (uid ${st.uid}), so it cannot be narrowed here`,
      fix: `as its owner: chmod 600 ${file} (it holds the API hash and the Gemini key)`,
    });
  }
  try {
    chmodSync(file, PRIVATE_MODE);
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `others can read it (mode ${octal(mode)}) and it cannot be narrowed: ${fsReason(e)}`,
      fix: `chmod 600 ${file}`,
    });
  }
  return { kind: "narrowed", was: mode };
}

/** The line a script prints when `.env` was narrowed (undefined otherwise). */
export function dotEnvNotice(file: string, r: DotEnvMode): string | undefined {
  return r.kind === "narrowed"
    ? `${file}: others could read it (mode ${octal(r.was)}); narrowed to 0600 (it holds the API hash and the Gemini key)`
    : undefined;
}
