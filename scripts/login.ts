/**
 * `npm run login -- <Agent> [--qr] [--force]`: log a persona's Telegram account in and save
 * its session to sessions/<Agent>.session. `main` is exported so tests run the script itself
 * with scripted answers.
 */
import { join, resolve } from "node:path";
import { runCommand, runWhenMain, shownPath, type ScriptIo } from "../src/cli/args";
import { withDotEnv } from "../src/config/dotenv";
import { dotEnvNotice, secureDotEnv } from "../src/config/env-file-mode";
import { readEnv, telegramCredentials } from "../src/config/env";
import { loadPersonas } from "../src/config/persona";
import { sessionPath } from "../src/telegram/connection/client";
import { errorMessage } from "../src/base/error-message";
import { LoginError, logIn } from "../src/telegram/login/login";
import { terminalPrompts, type LoginPrompts } from "../src/telegram/login/prompts";
import type { Clock } from "../src/base/types";

export const USAGE = `Usage: npm run login -- <Agent> [--qr] [--force]

Logs the Telegram account of persona <Agent> (agents/<Agent>.md) in and saves its session to
sessions/<Agent>.session (readable only by you). Asks for the phone number (default: the
persona's "# Agent Phone"), then the login code Telegram sends, then the 2FA password if the
account has one.

  --qr       log in by scanning a QR code with a phone where the account is logged in
  --force    log in again even if the saved session still works
  -h, --help show this help

Needs TELEGRAM_API_ID and TELEGRAM_API_HASH (from https://my.telegram.org, "API development
tools"), in the environment or in a .env file in this directory.
`;

/** What the script reads and writes; tests pass their own. */
export interface LoginIo extends ScriptIo {
  readonly prompts?: LoginPrompts;
  readonly clock?: Clock;
  readonly qrTimeoutMs?: number;
}

/** Runs the command; resolves with the exit status (0 logged in, 1 failed, 2 bad usage). */
export function main(argv: readonly string[], io: LoginIo): Promise<number> {
  const spec = {
    name: "login",
    usage: USAGE,
    options: { qr: { type: "boolean" }, force: { type: "boolean" } },
    positionals: true,
  } as const;
  return runCommand(spec, argv, io, (parsed) => login(parsed, io));
}

async function login(
  parsed: {
    readonly values: { readonly qr?: boolean; readonly force?: boolean };
    readonly positionals: readonly string[];
  },
  io: LoginIo,
): Promise<number> {
  const fail = (message: string, status = 1) => {
    io.stderr(`login: ${message}\n`);
    return status;
  };
  const [agent, ...extra] = parsed.positionals;
  if (agent === undefined)
    return fail("name the persona to log in: npm run login -- <Agent> (see --help)", 2);
  if (extra.length > 0) return fail(`unexpected argument "${extra[0]}": log in one persona at a time`, 2);

  let env: NodeJS.ProcessEnv;
  try {
    const file = join(io.cwd, ".env");
    const notice = dotEnvNotice(".env", secureDotEnv(file));
    if (notice !== undefined) io.stderr(`login: ${notice}\n`);
    env = withDotEnv(io.env, file);
  } catch (e) {
    return fail(errorMessage(e));
  }
  let dirs: { agents: string; sessions: string };
  try {
    const e = readEnv({ AGENTS_DIR: env.AGENTS_DIR, SESSIONS_DIR: env.SESSIONS_DIR });
    dirs = { agents: resolve(io.cwd, e.AGENTS_DIR), sessions: resolve(io.cwd, e.SESSIONS_DIR) };
  } catch (e) {
    return fail(errorMessage(e));
  }
  // The persona first: a name that is no persona is the first thing to fix, whatever else is missing.
  let personas;
  try {
    personas = loadPersonas(dirs.agents);
  } catch (e) {
    return fail(errorMessage(e));
  }
  const persona = personas.find((p) => p.name.toLowerCase() === agent.toLowerCase());
  if (!persona)
    return fail(
      `no persona named "${agent}" in ${shownPath(io.cwd, dirs.agents)}/ (there are: ${personas.map((p) => p.name).join(", ")})`,
    );

  let credentials: ReturnType<typeof telegramCredentials>;
  try {
    credentials = telegramCredentials(env);
  } catch (e) {
    return fail(
      `${errorMessage(e)}\n` +
        `Get TELEGRAM_API_ID and TELEGRAM_API_HASH from https://my.telegram.org ("API development tools") and put them ` +
        `in the environment or in a .env file (see README, "Logging in").`,
    );
  }

  const file = sessionPath(dirs.sessions, persona.name);
  try {
    const me = await logIn({
      agent: persona.name,
      sessionFile: file,
      apiId: credentials.apiId,
      apiHash: credentials.apiHash,
      identity: credentials.identity,
      ...(persona.phone !== undefined ? { defaultPhone: persona.phone } : {}),
      qr: parsed.values.qr === true,
      force: parsed.values.force === true,
      prompts: io.prompts ?? terminalPrompts(),
      out: (text) => io.stdout(`${text}\n`),
      ...(io.clock ? { clock: io.clock } : {}),
      ...(io.qrTimeoutMs !== undefined ? { qrTimeoutMs: io.qrTimeoutMs } : {}),
    });
    const who = `${me.name} (${me.username ? `@${me.username}` : "no @username"}, id ${me.id})`;
    if (me.alreadyLoggedIn) {
      io.stdout(
        `${persona.name} is already logged in as ${who}; its session in ${shownPath(io.cwd, file)} still works. Use --force to log in again.\n`,
      );
    } else {
      io.stdout(
        `Logged in as ${who}. Session saved to ${shownPath(io.cwd, file)} (readable only by you). Run: npm start\n`,
      );
    }
    return 0;
  } catch (e) {
    if (e instanceof LoginError) return fail(e.message);
    return fail(`login failed: ${errorMessage(e)}`);
  }
}

// Run when executed (npm run login), not when imported by a test; GramJS leaves timers behind
// after a login, so the frame's explicit exit matters.
runWhenMain(import.meta.url, main);
