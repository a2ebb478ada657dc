/** `npm start`: run every persona with a saved session, or the offline sandbox when there is none. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { dotEnvNotice, secureDotEnv } from "../src/config/env-file-mode";
import { favourMemory } from "../src/runtime/memory-mode";
import { start } from "../src/app/start";
import { SANDBOX_FLAGS, SANDBOX_FLAGS_USAGE, sandboxOptions } from "../src/sandbox/flags";

favourMemory(); // V8 grows the heap in smaller steps (src/runtime/memory-mode.ts, bench P7)

const USAGE = `Usage: npm start [-- --agent <Name> ...] [sandbox flags]

Runs every persona in agents/ that has a session file (sessions/<Name>.session) on its real
Telegram account, all in this process. Personas without one are listed with the command that
logs them in (npm run login -- <Name>). With no session at all, starts the offline sandbox
(npm run sandbox): without a model configured, the offline echo planner answers there, labelled
"not from a model"; --dry shows the request a model would be sent instead.

Ctrl-C, SIGTERM or SIGHUP (a closed terminal) stops cleanly (a send in flight finishes;
pending tasks are kept for the next start); a second signal exits at once.

Options:
  --agent <Name>   run only this persona (repeatable; the sandbox runs the first)
  -h, --help       this text

Sandbox flags (used only when the offline sandbox starts):
${SANDBOX_FLAGS_USAGE}

Needs TELEGRAM_API_ID, TELEGRAM_API_HASH and a model (GEMINI_API_KEY) for real accounts.
Logs: JSON lines on stderr, human-readable on a terminal (LOG_LEVEL, LOG_FORMAT=json|pretty).`;

runScript("start", USAGE, { agent: { type: "string", multiple: true }, ...SANDBOX_FLAGS }, (flags) => {
  // .env holds secrets: narrowed to 0600 (one line) or refused before it is read.
  const notice = dotEnvNotice(".env", secureDotEnv(".env"));
  if (notice !== undefined) process.stderr.write(`start: ${notice}\n`);
  loadDotEnv(); // .env in the working directory, under the environment
  const sandbox = sandboxOptions(flags);
  return start({ ...(flags.agent ? { agents: flags.agent } : {}), sandbox });
});
