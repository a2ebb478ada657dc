/**
 * `npm run backup -- <file>`: a consistent copy of the state database, taken while the personas
 * run (src/store/backup.ts). `main` is exported so tests run the script itself.
 */
import { join, resolve } from "node:path";
import { runCommand, runWhenMain, shownPath, type ScriptIo } from "../src/cli/args";
import { withDotEnv } from "../src/config/dotenv";
import { dotEnvNotice, secureDotEnv } from "../src/config/env-file-mode";
import { readEnv } from "../src/config/env";
import { backupDatabase } from "../src/store/backup";
import { describeLeftovers } from "../src/store/backup-leftovers";
import { errorMessage } from "../src/base/error-message";

export const USAGE = `Usage: npm run backup -- <file> [--db <state database>]

Copies the state database (STATE_DB, default state/agents.db) to <file> while the personas keep
running: SQLite's online backup, a consistent copy as of one moment. The copy is written to a
temporary file beside <file> (mode 0600: it holds the personas' memories and chats) and renamed
over <file> only when complete, so <file> is never half-written; an existing <file> is replaced.

Session files (SESSIONS_DIR) are not in the database; back them up apart, or log in again.
To restore, see README "Backup and restore".

Options:
  --db <file>   the database to copy (default: STATE_DB)
  -h, --help    this text`;

/** Runs the command; resolves with the exit status (0 copied, 1 failed, 2 bad usage). */
export function main(argv: readonly string[], io: ScriptIo): Promise<number> {
  const spec = {
    name: "backup",
    usage: USAGE,
    options: { db: { type: "string" } },
    positionals: true,
  } as const;
  return runCommand(spec, argv, io, (parsed) => backup(parsed, io));
}

async function backup(
  parsed: { readonly values: { readonly db?: string }; readonly positionals: readonly string[] },
  io: ScriptIo,
): Promise<number> {
  const fail = (message: string, status = 1) => {
    io.stderr(`backup: ${message}\n`);
    return status;
  };
  const [target, ...extra] = parsed.positionals;
  if (target === undefined) return fail("name the file to write: npm run backup -- <file> (see --help)", 2);
  if (extra.length > 0) return fail(`unexpected argument "${extra[0]}": name one file`, 2);
  let source: string;
  try {
    const file = join(io.cwd, ".env");
    const notice = dotEnvNotice(".env", secureDotEnv(file));
    if (notice !== undefined) io.stderr(`backup: ${notice}\n`);
    source = parsed.values.db ?? readEnv({ STATE_DB: withDotEnv(io.env, file).STATE_DB }).STATE_DB;
  } catch (e) {
    return fail(errorMessage(e));
  }
  try {
    const r = await backupDatabase(resolve(io.cwd, source), resolve(io.cwd, target));
    if (r.removed.length > 0) io.stderr(`backup: ${describeLeftovers(r.removed)}\n`);
    const mb = (r.bytes / 1e6).toFixed(1);
    io.stdout(
      `backup: ${shownPath(io.cwd, r.file)} (${mb} MB, mode 0600) in ${(r.ms / 1000).toFixed(1)} s: ${r.counts.messages} messages, ${r.counts.memories} memories, ` +
        `${r.counts.summaries} summaries, ${r.counts.openTasks} open tasks\n`,
    );
    return 0;
  } catch (e) {
    return fail(errorMessage(e));
  }
}

// Run when executed (npm run backup), not when imported by a test.
runWhenMain(import.meta.url, main);
