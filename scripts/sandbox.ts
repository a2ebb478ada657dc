/** `npm run sandbox`: the real runtime on the Telegram emulator, typed into from the terminal. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { dotEnvNotice, secureDotEnv } from "../src/config/env-file-mode";
import { favourMemory } from "../src/runtime/memory-mode";
import { helpText } from "../src/sandbox/grammar";
import { runSandbox } from "../src/sandbox/repl";

favourMemory(); // as npm start (src/runtime/memory-mode.ts)

const USAGE = `Usage: npm run sandbox [-- --agent <Name>] [--verbose] [--echo] [--json] [--db <file>]

The persona runs on an in-process Telegram emulator, in a supergroup "Sandbox" with alice, bob
and carol, and you type as them — or as the account's owner.

${helpText()}

End input (Ctrl-D) to leave once nothing is pending, or press Ctrl-C to stop at once
(pending work is abandoned; a second Ctrl-C exits immediately).

Options:
  --agent <Name>   the persona to run (default: the first file in agents/)
  --verbose        print the planner's envelopes and plans, and task transitions
  --echo           without GEMINI_API_KEY: answer with the offline echo planner's canned plans
                   (a 👍, a reply quoting the message, a memory), labelled "not from a model"
  --json           dry run: print each request as its exact JSON body (default: readable text)
  --db <file>      keep the database in this file (default: a fresh temporary one)
  -h, --help       this text

Without GEMINI_API_KEY (and without --echo) the sandbox is dry: it prints the request it would
send to Gemini and answers nothing. The operator console's edits go to a temporary copy of
agents/, never into it.`;

runScript(
  "sandbox",
  USAGE,
  {
    agent: { type: "string" },
    verbose: { type: "boolean" },
    echo: { type: "boolean" },
    json: { type: "boolean" },
    db: { type: "string" },
  },
  (flags) => {
    // .env holds secrets: narrowed to 0600 (one line) or refused before it is read.
    const notice = dotEnvNotice(".env", secureDotEnv(".env"));
    if (notice !== undefined) process.stderr.write(`sandbox: ${notice}\n`);
    loadDotEnv(); // .env in the working directory, under the environment
    return runSandbox({
      agent: flags.agent,
      verbose: flags.verbose ?? false,
      echo: flags.echo ?? false,
      json: flags.json ?? false,
      dbPath: flags.db,
    });
  },
);
