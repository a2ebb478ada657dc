/**
 * Memory by meaning (docs/memory.md "Recall by meaning", issue 41):
 *
 * - `recallLatency`: recall's queries on a real SQLite file with the real sqlite-vec extension,
 *   at 10k and 100k memories of one group (the worst case: every memory visible there, so the
 *   brute-force comparison reads them all) — the full-text query, the scoped nearest-neighbour
 *   query, and both fused (what a plan pays), median and p95.
 * - `recallQuality`: recall@5 of a labelled set of paraphrased questions among a few hundred
 *   memories, by words alone (FTS5) and hybrid — `npm run eval`'s recall scenes (src/eval/
 *   recall.ts) — with the fakes' deterministic embeddings in-process (test/support/
 *   fake-embeddings.ts: a hashed bag of stems and a tiny synonym table, which checks the
 *   plumbing, not a model), or with the configured provider (`real`: LLM_EMBED, GEMINI_API_KEY
 *   or OPENAI_BASE_URL from the environment, as `npm start` reads them).
 * - `embedCallsPerPlan`: the embedding calls a plan makes, through the real runtime (emulator,
 *   planning, a dry planner): the query once per plan, never on the inbound path.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { FakeClock } from "../src/base/clock";
import { parsePersona } from "../src/config/persona";
import { readEnv } from "../src/config/env";
import type { EmbedRequest, Embedder } from "../src/llm/embedder";
import { createEmbedder } from "../src/llm/embedding-route";
import { runRecall } from "../src/eval/recall";
import { fuse, HYBRID_CANDIDATES, nearEnough } from "../src/memory/hybrid";
import { DryPlanner } from "../src/planning/planner";
import { closeDatabase, openDatabase, transaction } from "../src/store/db";
import { MemoryStore, type MemoryViewer } from "../src/store/memories";
import { MemoryVectorStore } from "../src/store/memory-vectors";
import { fakeEmbedding } from "../test/support/fake-embeddings";
import { benchWorld, startRig, tearDownRig } from "./rig";

const AGENT = "Mira";
const GROUP = "-1001000000001";

/** The fakes' embeddings in-process (the same vectors the loopback fakes answer), counting calls. */
class CountingEmbedder implements Embedder {
  readonly model = "fake-embed";
  readonly calls: EmbedRequest[] = [];
  constructor(private readonly dims: number) {}
  get key(): string {
    return `fake:${this.model}@${this.dims}`;
  }
  get dimensions(): number {
    return this.dims;
  }
  onUsage(): () => void {
    return () => {};
  }
  async embed(req: EmbedRequest): Promise<Float32Array[]> {
    this.calls.push(req);
    return req.texts.map((t) => Float32Array.from(fakeEmbedding(t, this.dims)));
  }
}

interface Timing {
  readonly medianMs: number;
  readonly p95Ms: number;
}

function timing(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))]! * 100) / 100;
  return { medianMs: at(0.5), p95Ms: at(0.95) };
}

function randomUnit(dims: number, seed: number): Float32Array {
  let x = seed * 2654435761;
  const v = new Float32Array(dims);
  let norm = 0;
  for (let i = 0; i < dims; i++) {
    x = (Math.imul(x ^ (x >>> 15), 2246822507) + 0x9e3779b9) | 0;
    v[i] = (x >>> 0) / 4294967296 - 0.5;
    norm += v[i]! * v[i]!;
  }
  const n = Math.sqrt(norm);
  for (let i = 0; i < dims; i++) v[i]! /= n;
  return v;
}

const WORDS =
  "tea chess rain trains maps kites violins lamps boats bikes jazz bread hills rivers snow books".split(" ");

export interface LatencyFigures {
  readonly memories: number;
  readonly dims: number;
  readonly fts: Timing;
  readonly nearest: Timing;
  readonly hybrid: Timing;
  readonly dbMb: number;
}

/** Recall's queries at each size (one group holding every memory), `dims`-long vectors. */
export function benchRecallLatency(o: { sizes?: readonly number[]; dims?: number; queries?: number } = {}): {
  sizes: LatencyFigures[];
} {
  const dims = o.dims ?? 256;
  const out: LatencyFigures[] = [];
  for (const size of o.sizes ?? [10_000, 100_000]) {
    const dir = mkdtempSync(join(tmpdir(), "bench-meaning-"));
    const db = openDatabase(join(dir, "state.db"));
    try {
      const memories = new MemoryStore(db, AGENT);
      const vectors = new MemoryVectorStore(db, AGENT);
      if (vectors.unavailable) throw new Error(`sqlite-vec did not load: ${vectors.unavailable}`);
      const key = `bench:random@${dims}`;
      const now = Date.UTC(2026, 10, 1);
      for (let start = 0; start < size; start += 5_000)
        transaction(db, () => {
          for (let i = start; i < Math.min(size, start + 5_000); i++) {
            const content = `note ${i}: ${WORDS[i % WORDS.length]} and ${WORDS[(i * 7) % WORDS.length]} ${i % 97}`;
            const { id } = memories.remember({ chatId: GROUP, content, now: now + i, byOwner: true });
            vectors.put({ id, content }, key, randomUnit(dims, i + 1), now);
          }
        });
      const viewer: MemoryViewer = { chatId: GROUP, present: ["1", "2", "3"] };
      const fts: number[] = [];
      const nearest: number[] = [];
      const hybrid: number[] = [];
      const n = o.queries ?? 30;
      for (let q = 0; q < n + 3; q++) {
        const text = `what about the ${WORDS[q % WORDS.length]} and ${WORDS[(q + 3) % WORDS.length]}?`;
        const vec = randomUnit(dims, 10_000_000 + q);
        const t0 = performance.now();
        const words = memories.search(viewer, text, HYBRID_CANDIDATES);
        const t1 = performance.now();
        const near = vectors.nearest(viewer, key, vec, HYBRID_CANDIDATES);
        const t2 = performance.now();
        fuse({ words, meaning: nearEnough(near), present: viewer.present, limit: 6 });
        const t3 = performance.now();
        if (q < 3) continue; // warm-up
        fts.push(t1 - t0);
        nearest.push(t2 - t1);
        hybrid.push(t3 - t0);
      }
      const pages = db.pragma("page_count", { simple: true }) as number;
      const pageSize = db.pragma("page_size", { simple: true }) as number;
      out.push({
        memories: size,
        dims,
        fts: timing(fts),
        nearest: timing(nearest),
        hybrid: timing(hybrid),
        dbMb: Math.round((pages * pageSize) / 1e5) / 10,
      });
    } finally {
      closeDatabase(db);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return { sizes: out };
}

export interface QualityFigures {
  readonly embedder: string;
  readonly questions: number;
  readonly memories: number;
  readonly ftsRecallAt5: number;
  readonly hybridRecallAt5: number;
  /** Embedding calls the set took (memories in batches of 16, one per question). */
  readonly embedCalls: number;
}

/**
 * recall@5 by words alone and hybrid: `npm run eval`'s recall scenes (src/eval/recall.ts, the
 * labelled set of src/eval/recall-set.ts), with the fakes' vectors in-process or the configured provider.
 */
export async function benchRecallQuality(o: { real?: boolean } = {}): Promise<QualityFigures> {
  const counting = new CountingEmbedder(256);
  const embedder: Embedder | undefined = o.real
    ? createEmbedder(readEnv(process.env), pino({ level: "warn" }))
    : counting;
  if (!embedder)
    throw new Error(
      "recallQuality --real: no embedder configured (set LLM_EMBED, GEMINI_API_KEY or OPENAI_BASE_URL)",
    );
  const r = await runRecall({ embedder, fake: !o.real, logger: pino({ level: "warn" }) });
  return {
    embedder: o.real ? r.embedder : `${counting.key} (the fakes' deterministic vectors)`,
    questions: r.questions,
    memories: r.memories,
    ftsRecallAt5: r.wordsAt5,
    hybridRecallAt5: r.hybridAt5,
    embedCalls: o.real ? r.embedCalls : counting.calls.length,
  };
}

const PERSONA = `# Agent Name
Mira

# Agent Instructions
You are Mira, a friendly member of this group.

# Group Mode
strict
`;

/** Embedding calls per plan through the real runtime: `plans` addressed messages in a group with memories. */
export async function benchEmbedCallsPerPlan(o: { plans?: number; chatter?: number } = {}): Promise<{
  plans: number;
  inboundMessages: number;
  queryCalls: number;
  queryCallsPerPlan: number;
  documentCalls: number;
  /** Texts of messages not for her that any embedding call carried (the goal: 0). */
  chatterEmbedded: number;
}> {
  const clock = new FakeClock();
  const world = benchWorld("bench-meaning-plan", clock);
  const { emu } = world;
  const me = emu.addAccount({ firstName: "Mira", username: "mira_bench" });
  const alice = emu.addUser({ firstName: "Alice", username: "alice" });
  const people = [alice, emu.addUser({ firstName: "Bob" })] as const;
  const group = emu.createSupergroup({ title: "Sandbox", members: [me, ...people] });
  const embedder = new CountingEmbedder(128);
  let planned = 0;
  const rig = startRig(world, me, {
    persona: parsePersona(PERSONA, { file: "agents/Mira.md", promptDirs: [] }),
    planner: new DryPlanner(() => planned++),
    embedder,
    catchUpOnStart: false,
  });
  try {
    for (let i = 0; i < 20; i++)
      rig.runtime.memories.remember({
        chatId: group.peerId,
        content: `the group likes ${WORDS[i % WORDS.length]} ${i}`,
        now: clock.now() - i * 60_000,
      });
    await clock.advance(30_000);
    const plans = o.plans ?? 10;
    const chatter = o.chatter ?? 10;
    let inbound = 0;
    for (let p = 0; p < plans; p++) {
      // Messages not for her: stored only (the inbound path embeds nothing).
      for (let c = 0; c < chatter; c++, inbound++)
        await emu.post({ chat: group, from: people[c % 2]!, text: `chatter ${p}.${c} about ${WORDS[c]}` });
      await emu.post({ chat: group, from: alice, text: `@mira_bench question ${p}: any ${WORDS[p]}?` });
      inbound++;
      await clock.advance(60_000);
    }
    const queries = embedder.calls.filter((c) => c.task === "query").length;
    return {
      plans: planned,
      inboundMessages: inbound,
      queryCalls: queries,
      queryCallsPerPlan: planned === 0 ? 0 : Math.round((queries / planned) * 100) / 100,
      documentCalls: embedder.calls.filter((c) => c.task === "document").length,
      chatterEmbedded: embedder.calls.flatMap((c) => c.texts).filter((t) => t.includes("chatter")).length,
    };
  } finally {
    await tearDownRig(rig);
  }
}
