/** `npm run sandbox`: the real runtime on the Telegram emulator, typed into from the terminal. */
import { runScript } from "../src/cli/args";
import { loadDotEnv } from "../src/config/dotenv";
import { dotEnvNotice, secureDotEnv } from "../src/config/env-file-mode";
import { favourMemory } from "../src/runtime/memory-mode";
import { helpText } from "../src/sandbox/grammar";
import { runSandbox } from "../src/sandbox/repl";
import { SANDBOX_FLAGS, SANDBOX_FLAGS_USAGE, sandboxOptions } from "../src/sandbox/flags";

favourMemory(); // as npm start (src/runtime/memory-mode.ts)

const USAGE = `Usage: npm run sandbox [-- --agent <Name>] [--verbose] [--dry [--json]] [--db <file>]

The persona runs on an in-process Telegram emulator, in a supergroup "Sandbox" with alice, bob
and carol, and you type as them — or as the account's owner.

${helpText()}

End input (Ctrl-D) to leave once nothing is pending, or press Ctrl-C to stop at once
(pending work is abandoned; a second Ctrl-C exits immediately).

Options:
  --agent <Name>   the persona to run (default: the first file in agents/)
${SANDBOX_FLAGS_USAGE}
  -h, --help       this text

With GEMINI_API_KEY set, Gemini plans. Without it, the offline echo planner answers (canned
plans, labelled "not from a model"); with --dry the sandbox prints the request it would send to
the model and answers nothing. The operator console's edits go to a temporary copy of
agents/, never into it.`;

runScript("sandbox", USAGE, { agent: { type: "string" }, ...SANDBOX_FLAGS }, (flags) => {
  // .env holds secrets: narrowed to 0600 (one line) or refused before it is read.
  const notice = dotEnvNotice(".env", secureDotEnv(".env"));
  if (notice !== undefined) process.stderr.write(`sandbox: ${notice}\n`);
  loadDotEnv(); // .env in the working directory, under the environment
  return runSandbox({ agent: flags.agent, ...sandboxOptions(flags) });
});
