/**
 * Every workload of `npm run bench`, by name: scripts/bench.ts runs each in a fresh child process
 * (bench-child.ts), so no figure is measured in a process that earlier workloads left slower (a
 * grown heap, JIT state tuned to other code, open handles). P1 read 2.6 after the other workloads
 * and 1.2–1.3 alone; each figure is now the workload alone.
 */
import { benchBatching } from "./batching-bench";
import { benchCatchUp } from "./catch-up-bench";
import { benchBigGroup, benchByTheBook, benchFloodWait } from "./catch-up-book-bench";
import { benchGroupMemories, benchPromptGrowth } from "./context-bench";
import { benchAddressing } from "./addressing-bench";
import { benchAboutHer } from "./about-her-bench";
import { benchInbound } from "./inbound-bench";
import { benchReplies } from "./reply-bench";
import { benchRequest } from "./request-bench";
import { ingestForMemory } from "./memory-bench";
import { benchMedia } from "./media-bench";
import { benchConsole, benchInboundWithConsole } from "./console-bench";
import { benchOutage } from "./outage-bench";
import { benchFalseReconnects } from "./false-reconnects-bench";
import { benchIntentionStart, benchSchedulerLatency } from "./scheduler-bench";
import { benchEmbedCallsPerPlan, benchRecallLatency, benchRecallQuality } from "./meaning-bench";

type Args = Record<string, unknown>;
const num = (a: Args, k: string, d: number) => (typeof a[k] === "number" ? (a[k] as number) : d);

export const WORKLOADS = {
  inbound: (a: Args) => benchInbound({ messages: num(a, "messages", 20_000) }),
  inboundWithConsole: (a: Args) => benchInboundWithConsole({ messages: num(a, "messages", 20_000) }),
  batching: () => benchBatching(),
  promptGrowth: () => benchPromptGrowth(),
  groupMemories: () => benchGroupMemories(),
  addressing: () => benchAddressing(),
  addressingTalkative: () => benchAddressing({ mode: "talkative" }),
  aboutHer: () => benchAboutHer(),
  replies: async () => benchReplies(),
  request: async () => benchRequest(),
  media: () => benchMedia(),
  outage: () => benchOutage(),
  falseReconnects: () => benchFalseReconnects(),
  console: () => benchConsole(),
  scheduler: (a: Args) =>
    benchSchedulerLatency({
      chats: num(a, "chats", 1),
      ...(typeof a.repeats === "number" ? { repeats: a.repeats } : {}),
      ...(a.policy === "one-per-tick" ? { policy: "one-per-tick" as const } : {}),
      ...(typeof a.intentions === "number" ? { intentions: a.intentions } : {}),
    }),
  intentionStart: (a: Args) => benchIntentionStart({ pending: num(a, "pending", 10_000) }),
  p8: (a: Args) => benchCatchUp(a as Record<string, number>),
  byTheBook: () => benchByTheBook(),
  floodWait: (a: Args) =>
    benchFloodWait({
      ...(typeof a.withNews === "number" ? { withNews: a.withNews } : {}),
      ...(typeof a.perGroup === "number" ? { perGroup: a.perGroup } : {}),
      ...(typeof a.restartAfterSec === "number" ? { restartAfterSec: a.restartAfterSec } : {}),
    }),
  bigGroup: () => benchBigGroup(),
  // Memory by meaning (issue 41): recall latency at 10k and 100k memories, recall@5, embedding calls per plan.
  recallLatency: (a: Args) =>
    benchRecallLatency({
      ...(Array.isArray(a.sizes) ? { sizes: a.sizes as number[] } : {}),
      ...(typeof a.dims === "number" ? { dims: a.dims } : {}),
    }),
  recallQuality: (a: Args) => benchRecallQuality({ real: a.real === true }),
  embedCallsPerPlan: () => benchEmbedCallsPerPlan(),
  p7: (a: Args) =>
    ingestForMemory({ messages: num(a, "messages", 1_000_000), chats: num(a, "chats", 10_000) }),
} as const;

export type WorkloadName = keyof typeof WORKLOADS;
export type WorkloadResult<N extends WorkloadName> = Awaited<ReturnType<(typeof WORKLOADS)[N]>>;
