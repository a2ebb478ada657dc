/** A clean process for one workload of `npm run bench` (workloads.ts; started by memory-bench.ts: inChild). */
import { favourMemory } from "../src/runtime/memory-mode";
import { WORKLOADS, type WorkloadName } from "./workloads";

favourMemory(); // as npm start runs (src/runtime/memory-mode.ts)

const [task, raw] = process.argv.slice(2);
const args = JSON.parse(raw ?? "{}") as Record<string, unknown>;
// The product's real-time waits (retention's pauses between batches) use unref'd timers, as npm
// start is kept alive by its connections; this child has none, so it holds itself open until done.
const alive = setInterval(() => {}, 60_000);
// A workload may answer at once (the recall-latency one is synchronous) or with a promise.
const workload = WORKLOADS[task as WorkloadName] as ((a: Record<string, unknown>) => unknown) | undefined;
if (!workload) {
  process.stderr.write(`bench child: no workload "${task}" (have: ${Object.keys(WORKLOADS).join(", ")})\n`);
  process.exit(2);
}
Promise.resolve()
  .then(() => workload(args))
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
