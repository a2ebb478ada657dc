/**
 * The offline sandbox: the real runtime on the Telegram emulator, in a group "Sandbox" with
 * alice, bob and carol. You type as them:
 *   alice: hello            post in the group
 *   bob > 12: indeed        reply to message #12
 *   dm carol: psst          a DM to the persona
 * Usage: npm run sandbox [-- --agent <Name>] [--verbose] [--db <path>]
 */
import { runSandbox } from "../src/runtime/sandbox";

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};

runSandbox({
  agent: flag("--agent"),
  verbose: args.includes("--verbose"),
  dbPath: flag("--db"),
}).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`sandbox: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
