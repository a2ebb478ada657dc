/** A clean process for one memory-sensitive benchmark (see memory-bench.ts: inChild). */
import { benchCatchUp } from "./catch-up-bench";
import { ingestForMemory } from "./memory-bench";
import { favourMemory } from "../src/runtime/memory-mode";

favourMemory(); // as npm start runs (src/runtime/memory-mode.ts)

const [task, raw] = process.argv.slice(2);
const args = JSON.parse(raw ?? "{}") as Record<string, number>;
// The product's real-time waits (retention's pauses between batches) use unref'd timers, as npm
// start is kept alive by its connections; this child has none, so it holds itself open until done.
const alive = setInterval(() => {}, 60_000);
const run =
  task === "p7"
    ? ingestForMemory({ messages: args.messages ?? 1_000_000, chats: args.chats ?? 10_000 })
    : benchCatchUp(args);
run
  .finally(() => clearInterval(alive))
  .then(
    (r) => process.send!(r, () => process.exit(0)),
    (e: unknown) => {
      process.stderr.write(
        `bench child ${task}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
      );
      process.exit(1);
    },
  );
