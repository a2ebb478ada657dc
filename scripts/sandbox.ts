/** `npm run sandbox`: the real runtime on the Telegram emulator, typed into from the terminal. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { favourMemory } from "../src/runtime/memory-mode";
import { runSandbox } from "../src/sandbox/repl";

favourMemory(); // as npm start (src/runtime/memory-mode.ts)

const USAGE = `Usage: npm run sandbox [-- --agent <Name>] [--verbose] [--db <file>]

The persona runs on an in-process Telegram emulator, in a supergroup "Sandbox" with alice, bob
and carol. Type one line per message:
  alice: hello            alice posts in the group
  bob > 12: indeed        bob replies to message #12
  dm carol: psst          carol writes to the persona directly
Control lines:
  /offline                the persona's connection drops (same process); people keep writing
  /online                 the connection comes back; the persona catches up on what it missed
  /kill                   the persona's process dies abruptly, as with kill -9
  /start                  a fresh process on the same database, catching up
  /help                   these lines
End input (Ctrl-D) to leave once nothing is pending, or press Ctrl-C to stop at once
(pending work is abandoned; a second Ctrl-C exits immediately).

Options:
  --agent <Name>   the persona to run (default: the first file in agents/)
  --verbose        print the planner's envelopes and plans, and task transitions
  --db <file>      keep the database in this file (default: a fresh temporary one)
  -h, --help       this text

Without GEMINI_API_KEY the sandbox is dry: it prints the request it would send to Gemini.`;

runScript(
  "sandbox",
  USAGE,
  {
    agent: { type: "string" },
    verbose: { type: "boolean" },
    db: { type: "string" },
  },
  (flags) => {
    loadDotEnv(); // .env in the working directory, under the environment
    return runSandbox({ agent: flags.agent, verbose: flags.verbose ?? false, dbPath: flags.db });
  },
);
