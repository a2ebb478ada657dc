/**
 * `npm run bench [-- --json]`: the project's speed figures, each a ratio measured in one run, each
 * workload in a fresh child process of its own (bench/workloads.ts).
 *   P1  inbound cost per non-addressed message ÷ GramJS's own dispatch to a no-op handler (≤ 1.25)
 *   P2  Telegram requests per non-addressed message (0)
 *   P3  planning calls for a burst (3 DMs 2 s apart; 5 mentions 1 s apart; goal 1 each) and the
 *       fake-clock time from a burst's last message to the persona's typing
 *   P4  planning prompt tokens (system instruction + contents) in a 10,000-message lane with 500 memories ÷ in a 50-message lane with 5 (≤ 1.3)
 *   group answer: planning prompt tokens with memories of the people present, and where those memories were learnt
 *   P5  tokens a reply costs the prompt (reply line, quote line, injected replied-to message),
 *       averaged over a realistic mix of replies (≤ 60)
 *   P6  scheduler latency at 1,000 active chats ÷ at 1 chat (≤ 2), beside one-task-per-tick
 *   P7  RSS after ingesting BENCH_P7_MESSAGES messages over 10,000 chats (≤ 300 MB)
 *   P8  catch-up after downtime (10,000 messages, 1,000 chats) vs a naive getHistory scan (≤ 0.2×)
 *   P8 by the book: a restart in 1,000 supergroups of which 10 had news (requests ≤ 1 + 10 + a few,
 *       ≤ 0.02× the naive scan, 0 lost, 0 doubled); flood: a FLOOD_WAIT_30 on getChannelDifference
 *       (0 requests to it for 30 s, 0 lost after); big group: mention-to-planning latency in a
 *       supergroup Telegram does not push (≤ one poll interval + the quiet window)
 *   planning calls per 100 messages of a strict group that talks about the persona (only what speaks to her)
 *   addressing calls per 100 group messages of ordinary chatter in smart mode (≤ 20), and in talkative mode
 *   P9  media: downloads and description calls for one sticker sent 100 times in 20 chats (1 and 1),
 *       and the latency a cached description adds to an answer (< 5 ms)
 *   request: a 16-message group answer's planning request — schema, instruction and history
 *       tokens — and the share of the next request that repeats its beginning (implicit cache)
 *   Gemini outage: requests per minute during a 10-minute outage with 50 waiting chats, and the
 *       time from recovery to the last answer
 *   false reconnects: an hour of GramJS's pings answered in 1.5 s (its ping loop on the fake
 *       clock): catch-ups and rebuilds (goal 0), DMs answered; then a real drop is caught up
 *   P1/P2 with the operator console open and a page subscribed to its live events, beside
 *       the same workload without it
 *   console: the operator console's server time for the conversations list and a chat page with
 *       1,000,000 messages in 10,000 chats (≤ 50 ms each)
 */
import { parseFlags, UsageError } from "../src/cli/args";
import { readNumber } from "../src/config/numbers";
import { favourMemory } from "../src/runtime/memory-mode";
import { CHATTER_COOLDOWN_MS } from "../src/inbound/addressing-prefilter";
import { inChild } from "../bench/memory-bench";

favourMemory(); // P1 and the rest measured as npm start runs (src/runtime/memory-mode.ts)

const USAGE = `Usage: npm run bench [-- --json]

Measures the project's speed and memory figures (P1, P2, P3, P4, P5, P6, P7, P8, P8 by the book,
flood waits, big groups, P9, addressing calls in smart mode, the anatomy of a planning request,
Gemini requests during an outage, false reconnects from GramJS's ping loop, memory by meaning:
recall latency at 10k and 100k memories, recall@5, embedding calls per plan; see README
"Benchmark").
Options:
  --json       print the figures as JSON
  -h, --help   this text
Environment: BENCH_MESSAGES (messages for P1/P2, default 20000),
BENCH_P7_MESSAGES (messages ingested for P7, default 1000000).`;

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
const messages = readNumber(process.env.BENCH_MESSAGES ?? "20000") ?? Number.NaN;
if (!Number.isInteger(messages) || messages < 100) {
  process.stderr.write(
    `bench: BENCH_MESSAGES must be a whole number of at least 100 (got "${process.env.BENCH_MESSAGES}")\n`,
  );
  process.exit(2);
}

const p7Messages = readNumber(process.env.BENCH_P7_MESSAGES ?? "1000000") ?? Number.NaN;
if (!Number.isInteger(p7Messages) || p7Messages < 1000) {
  process.stderr.write(
    `bench: BENCH_P7_MESSAGES must be a whole number of at least 1000 (got "${process.env.BENCH_P7_MESSAGES}")\n`,
  );
  process.exit(2);
}

// Each workload in a fresh child process (bench/workloads.ts), one after the other: a figure is
// the workload alone, never one slowed by what ran before it in the same process.
const inbound = await inChild("inbound", { messages });
const inboundLive = await inChild("inboundWithConsole", { messages });
const p3 = await inChild("batching", {});
const p4 = await inChild("promptGrowth", {});
const groupMemories = await inChild("groupMemories", {});
const addressing = await inChild("addressing", {});
const talkative = await inChild("addressingTalkative", {});
const aboutHer = await inChild("aboutHer", {});
const p5 = await inChild("replies", {});
const request = await inChild("request", {});
const p9 = await inChild("media", {});
const outage = await inChild("outage", {});
const falseReconnects = await inChild("falseReconnects", {});
const consolePages = await inChild("console", {});
const one = await inChild("scheduler", { chats: 1, repeats: 200 });
const many = await inChild("scheduler", { chats: 1000 });
const perTickOne = await inChild("scheduler", { chats: 1, repeats: 200, policy: "one-per-tick" });
const perTickMany = await inChild("scheduler", { chats: 1000, policy: "one-per-tick" });
// P6 again with 10,000 of the persona's intentions pending beside the tasks, and their start.
const oneWithIntentions = await inChild("scheduler", { chats: 1, repeats: 50, intentions: 10_000 });
const manyWithIntentions = await inChild("scheduler", { chats: 1000, intentions: 10_000 });
const intentionStart = await inChild("intentionStart", { pending: 10_000 });
const p8 = await inChild("p8", {});
const p8Book = await inChild("byTheBook", {});
const flood = await inChild("floodWait", {});
// Issue 38: 50 channels with 3 messages each named by the difference, the process restarted 5 s into the wait.
const floodRestart = await inChild("floodWait", { withNews: 50, perGroup: 3, restartAfterSec: 5 });
const bigGroup = await inChild("bigGroup", {});
const p7 = await inChild("p7", { messages: p7Messages, chats: 10_000 });
// Issue 41: memory by meaning.
const recallLatency = await inChild("recallLatency", {});
const recallQuality = await inChild("recallQuality", {});
const embedCalls = await inChild("embedCallsPerPlan", {});
const figures = {
  P1: {
    ratio: inbound.wire.ratio,
    target: 1.25,
    messages: inbound.messages,
    wire: inbound.wire,
    dispatchOnly: inbound.dispatchOnly,
  },
  // P2 counts the persona's requests over both of its timed runs (from the wire and prebuilt).
  P2: {
    requestsPerMessage: inbound.p2,
    requests: inbound.requests,
    messagesSeenByPersona: 2 * inbound.messages,
    target: 0,
  },
  // P1/P2 again with the operator console open and a page subscribed to its live events (and, for
  // a fair comparison, the same turns of the event loop without the console).
  consoleOpen: {
    P1: inboundLive.inbound.wire.ratio,
    P2: inboundLive.inbound.p2,
    liveEvents: inboundLive.events,
    pipelineUs: inboundLive.inbound.wire.pipelineUs,
    withoutConsole: {
      P1: inboundLive.withoutConsole.wire.ratio,
      P2: inboundLive.withoutConsole.p2,
      pipelineUs: inboundLive.withoutConsole.wire.pipelineUs,
    },
  },
  P3: { goalPlanningCalls: 1, clock: "fake (the planner answers at once)", ...p3 },
  P4: { estimator: "context/tokens.ts", ...p4 },
  groupAnswerWithMemories: { estimator: "context/tokens.ts", ...groupMemories },
  P5: {
    averageTokens: p5.averageTokens,
    target: 60,
    estimator: "context/tokens.ts estimateTokens",
    cases: p5.cases,
  },
  P6: {
    ratio: many.meanMs / one.meanMs,
    target: 2,
    oneChat: one,
    thousandChats: many,
    oneTaskPerTick: {
      ratio: perTickMany.meanMs / perTickOne.meanMs,
      oneChat: perTickOne,
      thousandChats: perTickMany,
    },
    with10000Intentions: {
      ratio: manyWithIntentions.meanMs / oneWithIntentions.meanMs,
      oneChat: oneWithIntentions,
      thousandChats: manyWithIntentions,
      start: intentionStart,
    },
  },
  P7: { rssMb: p7.rssMb, target: 300, ingest: p7, afterCatchUpRssMb: p8.rssMb },
  P8: { target: 0.2, ...p8 },
  P8ByTheBook: { target: { ratio: 0.02, lost: 0, doubled: 0 }, ...p8Book },
  floodWait: { clock: "fake", target: { requestsDuringWait: 0, lost: 0 }, ...flood },
  floodWaitRestart: {
    clock: "fake",
    target: { requestsDuringWait: 0, lost: 0, allStoredAfterWaitSec: 60 },
    ...floodRestart,
  },
  bigGroup: { clock: "fake (the planner answers at once)", ...bigGroup },
  addressingCallsPer100: addressing,
  aboutHer,
  talkativeAddressingCallsPer100: {
    callsPer100: talkative.callsPer100,
    maxCallsPer100: talkative.maxCallsPer100,
    seeds: talkative.seeds,
    chatterCooldownMin: CHATTER_COOLDOWN_MS / 60_000,
    sample: talkative.sample,
  },
  P9: { target: { downloads: 1, descriptionCalls: 1, cacheHitAddedMs: 5 }, ...p9 },
  request: { estimator: "context/tokens.ts", ...request },
  geminiOutage: { clock: "fake (the loopback Gemini answers at once)", ...outage },
  falseReconnects: {
    clock: "fake (GramJS's own ping loop evaluated on it)",
    target: { catchUps: 0, rebuilds: 0 },
    ...falseReconnects,
  },
  console: { targetMs: 50, ...consolePages },
  memoryByMeaning: { latency: recallLatency.sizes, quality: recallQuality, embedCallsPerPlan: embedCalls },
};

if (json) {
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} else {
  const f = (x: number, d = 2) => x.toFixed(d);
  const lat = (l: typeof one) =>
    `mean ${f(l.meanMs, 1)} ms, p95 ${f(l.p95Ms, 0)} ms, ${l.tasks} tasks, scheduling ${f(l.schedulingUsPerTask, 1)} µs/task`;
  console.log(
    `P1 inbound cost ratio: ${f(figures.P1.ratio, 3)} (target ≤ 1.25), ${inbound.messages} non-addressed group messages per path`,
  );
  console.log(
    `   from the wire (TL decode + dispatch): full inbound path ${f(inbound.wire.pipelineUs, 1)} µs/message vs GramJS to a no-op handler ${f(inbound.wire.gramjsNoopUs, 1)} µs/message`,
  );
  console.log(
    `   dispatch of prebuilt objects only:    full inbound path ${f(inbound.dispatchOnly.pipelineUs, 1)} µs/message vs GramJS to a no-op handler ${f(inbound.dispatchOnly.gramjsNoopUs, 1)} µs/message (ratio ${f(inbound.dispatchOnly.ratio, 3)})`,
  );
  console.log(
    `P2 Telegram requests per non-addressed message: ${figures.P2.requestsPerMessage} (${inbound.requests} requests for ${2 * inbound.messages} messages; target 0)`,
  );
  const live = figures.consoleOpen;
  console.log(
    `   with the operator console open and a page subscribed to live events (${live.liveEvents} change events delivered): P1 ${f(live.P1, 3)}, P2 ${live.P2} — the same workload yielding to the event loop every 100 messages without the console: P1 ${f(live.withoutConsole.P1, 3)}, P2 ${live.withoutConsole.P2} (full path ${f(live.pipelineUs, 1)} vs ${f(live.withoutConsole.pipelineUs, 1)} µs/message)`,
  );
  const burst = (b: typeof p3.dms) =>
    `${b.planningCalls} planning call(s), ${b.answers} answer(s), typing ${f(b.lastMessageToTypingMs / 1000, 1)} s after the last message`;
  console.log(
    `P3 bursts (quiet window ${p3.quietWindowSec} s; fake clock, the planner answers at once; goal 1 planning call each)`,
  );
  console.log(
    `   3 DMs 2 s apart:         ${burst(p3.dms)}   (quiet window 0: ${p3.withoutQuietWindow.dms.planningCalls} calls)`,
  );
  console.log(
    `   5 mentions 1 s apart:    ${burst(p3.mentions)}   (quiet window 0: ${p3.withoutQuietWindow.mentions.planningCalls} calls)`,
  );
  console.log(
    `   a single message:        typing ${f(p3.singleMessageToTypingMs / 1000, 1)} s after it (quiet window 0: ${f(p3.singleMessageWithoutQuietWindowMs / 1000, 1)} s, the read delay)`,
  );
  const lane = (l: typeof p4.long) =>
    `prompt ${l.promptTokens} tokens (${l.historyMessages} history messages, memories ${l.memoryTokens}, summary ${l.summaryTokens}); whole request ${l.requestTokens}`;
  console.log(
    `P4 prompt tokens (system instruction + contents; response schema excluded), 10,000-message DM lane with 500 memories ÷ 50-message lane with 5: ${f(p4.ratio)} (target ≤ 1.3); whole request ${f(p4.requestRatio)}`,
  );
  console.log(
    `   ${p4.long.laneMessages} messages, ${p4.long.memories} memories, a summary: ${lane(p4.long)}`,
  );
  console.log(
    `   ${p4.short.laneMessages} messages, ${p4.short.memories} memories, no summary yet: ${lane(p4.short)}`,
  );
  const gm = groupMemories;
  console.log(
    `Group answer with memories of the people present (3 people, ${gm.stored} memories: 6 each from their DMs, 3 from this group, 3 from another): prompt ${gm.promptTokens} tokens, memories ${gm.memoryTokens} tokens in ${gm.memoryLines} lines (learnt in this group ${gm.fromThisGroup}, in private chats ${gm.fromPrivateChats}, in other groups ${gm.fromOtherGroups})`,
  );
  console.log(
    `P5 tokens per reply (reply line + quote + injected replied-to message): ${f(p5.averageTokens, 1)} on average (target ≤ 60)`,
  );
  for (const c of p5.cases) {
    console.log(
      `   ${`${c.name}:`.padEnd(52)} ${String(c.totalTokens).padStart(3)} tokens (annotation ${c.annotationTokens}, injected ${c.injectedTokens}; ${Math.round(c.share * 100)}% of replies)`,
    );
  }
  console.log(
    `Planning request for a group answer after 16 messages held in replies: schema ${request.schemaTokens}, instruction ${request.instructionTokens}, history ${request.historyTokens} tokens (${request.messagesShown} messages shown)`,
  );
  console.log(
    "   fixed part per chat kind, tokens now (before the lean request): schema + instruction = prefix",
  );
  for (const [kind, x] of Object.entries(request.fixed)) {
    console.log(
      `   ${`${kind}:`.padEnd(15)} schema ${x.schema} (${x.schemaBefore}) + instruction ${x.instruction} (${x.instructionBefore}) = ${x.schema + x.instruction} (${x.schemaBefore + x.instructionBefore})`,
    );
  }
  const groupFixed = request.fixed.group.schema + request.fixed.group.instruction;
  console.log(`   a group plan's fixed part: ${groupFixed} tokens (goal ≤ 900)`);
  console.log(
    `   the next request (one exchange later) repeats its first ${request.repeatedPrefixTokens} tokens: ${f(request.repeatedShare * 100, 0)}% of instruction + turn, what the implicit cache can serve`,
  );
  console.log(`P6 scheduler latency ratio 1000 chats / 1 chat: ${f(figures.P6.ratio)} (target ≤ 2)`);
  console.log(`   1 chat:      ${lat(one)}`);
  console.log(`   1000 chats:  ${lat(many)}`);
  console.log(`   one-task-per-tick policy for comparison: ratio ${f(figures.P6.oneTaskPerTick.ratio, 1)}`);
  console.log(`   1 chat:      ${lat(perTickOne)}`);
  console.log(`   1000 chats:  ${lat(perTickMany)}`);
  console.log(
    `   with 10,000 intentions pending: ratio ${f(figures.P6.with10000Intentions.ratio)} (1 chat: ${lat(oneWithIntentions)}; 1000 chats: ${lat(manyWithIntentions)})`,
  );
  console.log(
    `   their start: ${f(intentionStart.startAllLaterMs)} ms all due later, ${f(intentionStart.startAllMissedMs)} ms all missed after a downtime; the due read ${f(intentionStart.nextDueUs)} µs`,
  );
  console.log(
    `P7 RSS after ingesting ${p7.messages} messages over ${p7.chats} chats: ${f(p7.rssMb, 0)} MB (target ≤ 300; heap used ${f(p7.heapUsedMb, 0)} MB of ${f(p7.heapTotalMb, 0)} MB committed, external ${f(p7.externalMb, 0)} MB, ${f(p7.seconds, 1)} s, ${p7.stored} stored)`,
  );
  console.log(`   after the P8 catch-up (its own process): ${f(p8.rssMb, 0)} MB`);
  console.log(
    `   database after the ingest: ${f(p7.dbMb, 0)} MB; after retention 91 days later with every lane summarised: ${f(p7.dbAfterRetentionMb, 1)} MB ` +
      `(${p7.retention.removed} messages removed in ${f(p7.retention.seconds, 1)} s, ${p7.retention.batches} batches; the longest spent ${f(p7.retention.longestBodyMs, 1)} ms deleting, ${f(p7.retention.longestBatchMs, 1)} ms with its commit and any WAL checkpoint)`,
  );
  console.log(
    `P8 catch-up requests ÷ naive scan: ${f(p8.ratio, 3)} (target ≤ 0.2), ${p8.messagesWhileDown} messages over ${p8.chats} chats while down`,
  );
  console.log(
    `   catch-up:   ${p8.catchUp.requests} requests, ${f(p8.catchUp.seconds, 1)} s (through the inbound path), ${p8.catchUp.recovered} recovered, ${p8.catchUp.lost} lost, ${p8.catchUp.doubled} doubled`,
  );
  console.log(
    `   naive scan: ${p8.naive.requests} requests (getDialogs + getHistory per dialog), ${f(p8.naive.seconds, 1)} s (fetch only), ${p8.naive.recovered} recovered`,
  );
  console.log(
    `   ${p8.removed.channels} of the chats are supergroups the account was removed from while down: ${p8.removed.requests} catch-up requests for them (goal ≤ ${p8.removed.channels}, one each), ${p8.removed.secondCatchUpRequests} at the next catch-up (goal 0)`,
  );
  const b = p8Book;
  console.log(
    `P8 by the book: ${b.catchUp.requests} requests after downtime in ${b.supergroups} supergroups of which ${b.withNews} had news (${Object.entries(
      b.catchUp.byMethod,
    )
      .map(([m, n]) => `${m} ${n}`)
      .join(
        ", ",
      )}; the book's ${b.bookRequests} + a few), ${f(b.ratio, 4)} × the naive scan's ${b.naive.requests} (target ≤ 0.02); ${b.catchUp.recovered} recovered, ${b.catchUp.lost} lost, ${b.catchUp.doubled} doubled`,
  );
  console.log(
    `Flood: FLOOD_WAIT_${flood.waitSec} on getChannelDifference (${flood.inFlight} requests in flight met it): ${flood.requestsDuringWait} requests to it during the wait (goal 0), the next ${f(flood.firstRequestAfterSec, 1)} s after it; ${flood.lost} of ${flood.messagesWhileDown} messages lost (goal 0)`,
  );
  console.log(
    `Flood with a restart 5 s into it: ${floodRestart.messagesWhileDown - floodRestart.lost} of ${floodRestart.messagesWhileDown} messages in 50 named channels stored ${f(floodRestart.allStoredAfterWaitSec, 0)} s after the wait's end (goal ≤ 60 s), ${floodRestart.requestsDuringWait} requests during the wait`,
  );
  console.log(
    `Big group (not pushed, persona active): mention to planning ${f(bigGroup.meanSec, 1)} s on average, at most ${f(bigGroup.maxSec, 1)} s over ${bigGroup.mentions} mentions (goal ≤ ${bigGroup.goalSec} s: poll interval ${bigGroup.pollIntervalSec} s + quiet window ${bigGroup.quietWindowSec} s); ${f(bigGroup.pushedSec, 1)} s in a pushed group`,
  );
  console.log(
    `P9 media: the same sticker ${p9.stickers} times in ${p9.chats} chats, addressed each time: ${p9.downloads} download (${p9.fileRequests} upload.getFile requests), ${p9.descriptionCalls} description call (goal 1 and 1), ${p9.plans} answers planned`,
  );
  console.log(
    `   a cached description adds ${f(p9.cacheHitAddedMs, 3)} ms to an answer (goal < 5 ms; 30-message history rendered in ${f(p9.renderWithMediaMs, 3)} ms with the sticker, ${f(p9.renderTextOnlyMs, 3)} ms as text only)`,
  );
  console.log(
    `Gemini outage of ${outage.outageMin} min with ${outage.chats} chats waiting: ${f(outage.requestsPerMinute, 1)} requests per minute (${outage.requestsDuringOutage} in all, at most ${outage.mostAtOnce} at once); ` +
      `back noticed after ${f(outage.recoveryNoticedMs / 1000, 1)} s (backoff cap ${outage.backoffCapMs / 1000} s), last answer ${f(outage.recoveryToLastAnswerMs / 1000, 1)} s after recovery; ${outage.answered} answered, ${outage.doubled} twice`,
  );
  const fr = falseReconnects;
  console.log(
    `False reconnects: ${fr.hours} h of pongs taking ${fr.pongDelayMs / 1000} s (${fr.pings} pings; GramJS said disconnected ${fr.gramjsEvents.disconnected}×, connected ${fr.gramjsEvents.connected}×): ` +
      `${fr.catchUps} catch-ups, ${fr.rebuilds} rebuilds (goal 0 and 0), ${fr.probes} probes, ${fr.dms.answered} of ${fr.dms.posted} DMs answered; ` +
      `then a pong that never came: ${fr.realDrop.reconnects} GramJS reconnect, ${fr.realDrop.catchUps} catch-up (${f(fr.wallSeconds, 1)} s of real time for the hour)`,
  );
  const a = addressing.sample;
  const skips = Object.entries(a.skipped)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  console.log(
    `Addressing calls per 100 group messages in smart mode: ${f(addressing.callsPer100, 1)} (mean of ${addressing.seeds} chatter scripts, worst ${f(addressing.maxCallsPer100, 0)}; goal ≤ 20)`,
  );
  console.log(
    `   talkative (chatter judged too, at most one chatter burst per chat per ${CHATTER_COOLDOWN_MS / 60_000} min): ${f(talkative.callsPer100, 1)} (worst ${f(talkative.maxCallsPer100, 0)})`,
  );
  console.log(
    `Planning calls per 100 messages of a strict group that talks about her: ${f(aboutHer.planningCallsPer100, 0)} (${aboutHer.spokenTo} speak to her by name, ${aboutHer.namingHer} name her of which ${aboutHer.meantForHer} speak to her; goal ${aboutHer.spokenTo + aboutHer.meantForHer}), and ${f(aboutHer.addressingCallsPer100, 0)} cheap addressing calls`,
  );
  console.log(
    `   first script: ${a.messages} messages, ${a.explicit} naming the persona (no call), ${a.considered} considered; prefilter skipped ${a.considered - a.candidates} (${skips}); ${a.candidates} candidates → ${a.calls} calls; ${a.answered} answered of ${a.meantForPersona} meant for the persona`,
  );
  console.log(
    `Operator console server time with ${consolePages.messages.toLocaleString("en-US")} messages in ${consolePages.chats.toLocaleString("en-US")} chats (median; goal ≤ 50 ms each): conversations list ${f(consolePages.chatsListMs, 1)} ms, chat page ${f(consolePages.chatPageMs, 1)} ms, the page around its first plan ${f(consolePages.oldPlanPageMs, 1)} ms, now view with the activity feed ${f(consolePages.nowMs, 1)} ms (the feed's start from the database after a restart ${f(consolePages.activitySeedMs, 1)} ms)`,
  );
  for (const r of recallLatency.sizes)
    console.log(
      `Recall at ${r.memories.toLocaleString("en-US")} memories of one chat (${r.dims} dimensions, median / p95): words ${f(r.fts.medianMs, 1)} / ${f(r.fts.p95Ms, 1)} ms, meaning ${f(r.nearest.medianMs, 1)} / ${f(r.nearest.p95Ms, 1)} ms, both fused ${f(r.hybrid.medianMs, 1)} / ${f(r.hybrid.p95Ms, 1)} ms`,
    );
  console.log(
    `Recall@5 of ${recallQuality.questions} paraphrased questions among ${recallQuality.memories} memories: words ${f(recallQuality.ftsRecallAt5)}, hybrid ${f(recallQuality.hybridRecallAt5)} (${recallQuality.embedder})`,
  );
  console.log(
    `Embedding calls per plan: ${f(embedCalls.queryCallsPerPlan)} (${embedCalls.queryCalls} for ${embedCalls.plans} plans; ${embedCalls.inboundMessages} inbound messages, ${embedCalls.chatterEmbedded} of those not for her embedded; ${embedCalls.documentCalls} background calls for the memories)`,
  );
}
