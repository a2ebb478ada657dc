/**
 * `npm run bench [-- --json]`: the project's speed figures, each a ratio measured in one run.
 *   P1  inbound cost per non-addressed message ÷ GramJS's own dispatch to a no-op handler (≤ 1.25)
 *   P2  Telegram requests per non-addressed message (0)
 *   P6  scheduler latency at 1,000 active chats ÷ at 1 chat (≤ 2), beside one-task-per-tick
 */
import { parseFlags, UsageError } from "../src/cli/args";
import { benchInbound } from "../src/bench/inbound-bench";
import { benchSchedulerLatency } from "../src/bench/scheduler-bench";

const USAGE = `Usage: npm run bench [-- --json]

Measures the project's speed figures (P1, P2, P6; see README "Benchmark").
Options:
  --json       print the figures as JSON
  -h, --help   this text
Environment: BENCH_MESSAGES (messages for P1/P2, default 20000).`;

let flags;
try {
  flags = parseFlags(process.argv.slice(2), { json: { type: "boolean" } });
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`bench: ${e.message}\nRun with --help for usage.\n`);
  process.exit(2);
}
if (flags === "help") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const json = flags.json ?? false;
const messages = Number(process.env.BENCH_MESSAGES ?? 20_000);
if (!Number.isInteger(messages) || messages < 100) {
  process.stderr.write(`bench: BENCH_MESSAGES must be a whole number of at least 100 (got "${process.env.BENCH_MESSAGES}")\n`);
  process.exit(2);
}

const inbound = await benchInbound({ messages });
const one = await benchSchedulerLatency({ chats: 1, repeats: 200 });
const many = await benchSchedulerLatency({ chats: 1000 });
const perTickOne = await benchSchedulerLatency({ chats: 1, repeats: 200, policy: "one-per-tick" });
const perTickMany = await benchSchedulerLatency({ chats: 1000, policy: "one-per-tick" });
const figures = {
  P1: { ratio: inbound.wire.ratio, target: 1.25, messages: inbound.messages, wire: inbound.wire, dispatchOnly: inbound.dispatchOnly },
  // P2 counts the persona's requests over both of its timed runs (from the wire and prebuilt).
  P2: { requestsPerMessage: inbound.p2, requests: inbound.requests, messagesSeenByPersona: 2 * inbound.messages, target: 0 },
  P6: {
    ratio: many.meanMs / one.meanMs,
    target: 2,
    oneChat: one,
    thousandChats: many,
    oneTaskPerTick: { ratio: perTickMany.meanMs / perTickOne.meanMs, oneChat: perTickOne, thousandChats: perTickMany },
  },
};

if (json) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const f = (x: number, d = 2) => x.toFixed(d);
  const lat = (l: typeof one) => `mean ${f(l.meanMs, 1)} ms, p95 ${f(l.p95Ms, 0)} ms, ${l.tasks} tasks, scheduling ${f(l.schedulingUsPerTask, 1)} µs/task`;
  console.log(`P1 inbound cost ratio: ${f(figures.P1.ratio, 3)} (target ≤ 1.25), ${inbound.messages} non-addressed group messages per path`);
  console.log(`   from the wire (TL decode + dispatch): full inbound path ${f(inbound.wire.pipelineUs, 1)} µs/message vs GramJS to a no-op handler ${f(inbound.wire.gramjsNoopUs, 1)} µs/message`);
  console.log(`   dispatch of prebuilt objects only:    full inbound path ${f(inbound.dispatchOnly.pipelineUs, 1)} µs/message vs GramJS to a no-op handler ${f(inbound.dispatchOnly.gramjsNoopUs, 1)} µs/message (ratio ${f(inbound.dispatchOnly.ratio, 3)})`);
  console.log(`P2 Telegram requests per non-addressed message: ${figures.P2.requestsPerMessage} (${inbound.requests} requests for ${2 * inbound.messages} messages; target 0)`);
  console.log(`P6 scheduler latency ratio 1000 chats / 1 chat: ${f(figures.P6.ratio)} (target ≤ 2)`);
  console.log(`   1 chat:      ${lat(one)}`);
  console.log(`   1000 chats:  ${lat(many)}`);
  console.log(`   one-task-per-tick policy for comparison: ratio ${f(figures.P6.oneTaskPerTick.ratio, 1)}`);
  console.log(`   1 chat:      ${lat(perTickOne)}`);
  console.log(`   1000 chats:  ${lat(perTickMany)}`);
}
