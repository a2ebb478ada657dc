/**
 * The scorecard's recall scenes (docs/eval.md "Recall"): the labelled paraphrases of
 * recall-set.ts, each asked among a few hundred memories of one group, through the path a plan
 * takes — the memories embedded by the persona's background job (memory/meaning.ts), the question
 * embedded as a plan's query (`queryVector`), and the memory part of the request filled by the
 * one function planning calls (memory/recall.ts `recall`). recall@5: the labelled memory is among
 * the first five memory lines of the request, by words alone (what a persona without an embedder
 * gets: FTS5) and hybrid (words and meaning fused).
 *
 * With the loopback fake's deterministic vectors (no embedding provider configured) the figure
 * says that vectors are stored, compared and fused, not how well a model embeds; with a
 * configured provider it is the model's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";
import { systemClock } from "../base/clock";
import type { Clock } from "../base/types";
import type { Speaker } from "../context/speaker";
import type { Embedder } from "../llm/embedder";
import { MemoryMeaning } from "../memory/meaning";
import { recall } from "../memory/recall";
import { closeDatabase, openDatabase } from "../store/db";
import { MemoryStore } from "../store/memories";
import { MemoryVectorStore } from "../store/memory-vectors";
import { holdProcessOpen } from "../runtime/shutdown";
import { RECALL_QUESTIONS, recallMemories, type RecallQuestion } from "./recall-set";

/** What the fake's figure measures (said wherever it is shown). */
export const FAKE_VECTORS = "fake vectors: measures the plumbing, not a model";

const AGENT = "Eval";
const GROUP = "-1001000000001";
/** recall@k. */
const K = 5;
/** With a real provider, memories per call and the pause between calls (a free tier's rate limit). */
const REAL_GAP_MS = 250;
/** A provider that embeds nothing for this long (failing, backed off) ends the run with its error. */
const STALL_MS = 60_000;
/** How often the backlog's progress is looked at. */
const POLL_MS = 20;

/** One question: whether its memory was among the first five, each way. */
export interface RecallVerdict {
  readonly id: string;
  readonly question: string;
  readonly memory: string;
  readonly words: boolean;
  readonly hybrid: boolean;
  /** The question could not be embedded (the plan would have recalled by words). */
  readonly notEmbedded: boolean;
}

export interface RecallResult {
  /** What made the vectors (`provider:model@dimensions`). */
  readonly embedder: string;
  /** The loopback fake's deterministic vectors, not a model. */
  readonly fake: boolean;
  readonly questions: number;
  readonly memories: number;
  /** recall@5 by words alone (0..1). */
  readonly wordsAt5: number;
  /** recall@5 hybrid (0..1). */
  readonly hybridAt5: number;
  /** Questions that could not be embedded (recalled by words in the hybrid run too). */
  readonly notEmbedded: number;
  /** Memories the provider refused to embed (found by their words only). */
  readonly skipped: number;
  readonly embedCalls: number;
  readonly embedTokens: number;
  readonly verdicts: readonly RecallVerdict[];
}

const speaker = (id: string): Speaker => ({ id, nickname: `user ${id}`, bot: false });

const sleep = (clock: Clock, ms: number) => new Promise<void>((r) => clock.setTimeout(r, ms));

/** The recall scenes (all, or `questions`), on a fresh SQLite file, with `embedder`. */
export async function runRecall(o: {
  readonly embedder: Embedder;
  /** The embedder gives the loopback fake's vectors. */
  readonly fake: boolean;
  readonly logger: Logger;
  readonly questions?: readonly RecallQuestion[];
  readonly progress?: (v: RecallVerdict) => void;
  /** The background job's and the wait's clock (default the wall clock). */
  readonly clock?: Clock;
}): Promise<RecallResult> {
  const clock = o.clock ?? systemClock;
  // The background job's timers do not hold the process open; the scorecard waits for them.
  const release = holdProcessOpen();
  const questions = o.questions ?? RECALL_QUESTIONS;
  let embedCalls = 0;
  let embedTokens = 0;
  const off = o.embedder.onUsage((u) => {
    embedCalls++;
    embedTokens += u.promptTokens;
  });
  const dir = mkdtempSync(join(tmpdir(), "eval-recall-"));
  const db = openDatabase(join(dir, "eval.db"));
  const vectors = new MemoryVectorStore(db, AGENT);
  const store = new MemoryStore(db, AGENT);
  const meaning = new MemoryMeaning({
    embedder: o.embedder,
    vectors,
    memories: store,
    clock,
    logger: o.logger,
    gapMs: o.fake ? 0 : REAL_GAP_MS,
  });
  try {
    if (vectors.unavailable) throw new Error(`recall by meaning is off here: ${vectors.unavailable}`);
    const texts = recallMemories();
    const start = Date.UTC(2026, 10, 1);
    // Told in the group over five hours, oldest first; kept as written (nothing merged).
    texts.forEach((content, i) =>
      store.remember({ chatId: GROUP, content, now: start + i * 60_000, byOwner: true }),
    );
    meaning.start();
    const status = await embedded(meaning, clock);
    const verdicts: RecallVerdict[] = [];
    for (const q of questions) {
      const ask = (m?: Parameters<typeof recall>[0]["meaning"]) =>
        recall({
          store,
          curated: new Map(),
          chatId: GROUP,
          present: [],
          speakerOf: speaker,
          query: q.question,
          topK: K,
          ...(m ? { meaning: m } : {}),
        })
          .slice(0, K)
          .some((n) => n.text === q.memory);
      const query = await meaning.queryVector(q.question, GROUP);
      const v: RecallVerdict = {
        id: q.id,
        question: q.question,
        memory: q.memory,
        words: ask(),
        hybrid: ask(query),
        notEmbedded: query === undefined,
      };
      verdicts.push(v);
      o.progress?.(v);
    }
    const share = (n: number) => (questions.length === 0 ? 0 : n / questions.length);
    return {
      embedder: o.embedder.key,
      fake: o.fake,
      questions: questions.length,
      memories: texts.length,
      wordsAt5: share(verdicts.filter((v) => v.words).length),
      hybridAt5: share(verdicts.filter((v) => v.hybrid).length),
      notEmbedded: verdicts.filter((v) => v.notEmbedded).length,
      skipped: status.skipped ?? 0,
      embedCalls,
      embedTokens,
      verdicts,
    };
  } finally {
    release();
    off();
    meaning.stop();
    closeDatabase(db);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the background job embedded every memory (or the provider refused the rest); throws when it stalls failing. */
async function embedded(meaning: MemoryMeaning, clock: Clock): Promise<{ skipped?: number }> {
  let last = -1;
  let lastMoved = clock.now();
  for (;;) {
    const s = meaning.status();
    if ("off" in s) throw new Error(`recall by meaning is off here: ${s.off}`);
    if (s.embedded + (s.skipped ?? 0) >= s.total) return s;
    if (s.embedded !== last) {
      last = s.embedded;
      lastMoved = clock.now();
    } else if (clock.now() - lastMoved > STALL_MS)
      throw new Error(
        `embedding the memories stalled at ${s.embedded} of ${s.total}` +
          (s.lastFailure ? `: ${s.lastFailure.error}` : ""),
      );
    await sleep(clock, POLL_MS);
  }
}

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** One line per question as it is scored. */
export function recallQuestionLine(v: RecallVerdict): string {
  const mark = (b: boolean) => (b ? "found " : "missed");
  return `${v.hybrid ? "ok  " : "FAIL"} ${v.id.padEnd(22)} words: ${mark(v.words)}  hybrid: ${mark(v.hybrid)}  "${v.question}" → "${v.memory}"${v.notEmbedded ? "  ← the question could not be embedded" : ""}`;
}

/** The scorecard's recall line (and what made the vectors). */
export function recallText(r: RecallResult): string {
  const lines = [
    `recall@5 of ${r.questions} paraphrased question${r.questions === 1 ? "" : "s"} among ${r.memories} memories: words ${pct(r.wordsAt5)}, hybrid ${pct(r.hybridAt5)}`,
    `vectors: ${r.embedder}${r.fake ? ` (${FAKE_VECTORS})` : ""}; ${r.embedCalls} embedding calls, ${r.embedTokens} tokens`,
  ];
  if (r.notEmbedded > 0)
    lines.push(`questions that could not be embedded (recalled by words): ${r.notEmbedded}`);
  if (r.skipped > 0) lines.push(`memories the provider refused to embed (found by words only): ${r.skipped}`);
  return lines.join("\n");
}
