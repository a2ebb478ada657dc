/** `npm start`: run every persona with a saved session, or the offline sandbox when there is none. */
import { start } from "../src/runtime/start";

start().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`start: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  },
);
