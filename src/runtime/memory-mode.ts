/**
 * How the process trades memory for speed (bench P7). V8 lets the old generation grow to up to
 * four times what survived the last full collection while allocation is fast, and the freed
 * pages and the native memory of the objects that died meanwhile (Buffers, GramJS's TL readers)
 * are not all given back afterwards: ingesting a busy stream of updates left ~150 MB of committed
 * heap for ~40 MB in use, and RSS above 300 MB. With V8's `--optimize-for-size` the heap grows
 * in steps of at most 2x, which halves the peak and the RSS that stays (P7), for a few percent
 * more GC time on the inbound path (P1 is measured with it too).
 *
 * Set from code (the entry points call this first) rather than on the command line, so every way
 * of starting — `npm start`, `node dist/start.js` in a service unit, the sandbox, the benchmark —
 * runs the same: on the command line the flag also shrinks the young generation and changes the
 * JIT, which made ingesting 2.5x slower in the same measurement.
 */
import { setFlagsFromString } from "node:v8";

let applied = false;
export function favourMemory(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString("--optimize-for-size");
}
