/**
 * Memory by meaning, the persona's half (docs/memory.md "Recall by meaning"): memories are
 * embedded in the background, after they are stored — never inside the store, never on the
 * inbound path — and a plan's query is embedded once, bounded, for recall (recall.ts fuses the
 * nearest memories with the full-text matches).
 *
 * - **After a store or an edit** (MemoryStore.onChange) the backlog is embedded soon; a failed
 *   call loses nothing: the memory is stored and found by its words, and stays pending (store/
 *   memory-vectors.ts: no vector of the current key) until a later call embeds it.
 * - **Bounded and resumable**: at most `batch` memories per call and one call per `gapMs` (after
 *   an upgrade, a model or a dimension change, the existing memories are embedded at that pace,
 *   newest first; a restart goes on where it stopped, as the pending ones are simply those without
 *   a vector). A failing provider is backed off up to {@link MAX_BACKOFF_MS}; the day's token
 *   budget spent, or the owner's `/pause` of every chat, holds it. Progress is logged.
 * - **One warning** when recall cannot be by meaning here (the sqlite-vec extension did not load:
 *   nothing is embedded, recall is by words), and one when vectors of another model are found
 *   (those memories are found by their words until embedded again).
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import type { Embedder } from "../llm/embedder";
import type { MemoryStore, MemoryViewer } from "../store/memories";
import type { MemoryVectorStore, NearMemory } from "../store/memory-vectors";

/** Memories per embedding call. */
const BATCH = 16;
/** Between two background calls (so the backlog after an upgrade costs at most BATCH memories per gap). */
const GAP_MS = 2_000;
/** The longest wait after failed calls. */
const MAX_BACKOFF_MS = 10 * 60_000;
/** While the day's token budget is spent or the owner paused everything, look again this often. */
const HELD_MS = 15 * 60_000;
/** Progress lines at most this often while a backlog is embedded. */
const PROGRESS_EVERY_MS = 30_000;
/** The deadline of a plan's query embedding (planning waits no longer for it). */
const QUERY_TIMEOUT_MS = 3_000;
/** Characters of a plan's query that are embedded (the messages answered; the start says most). */
const QUERY_CHARS = 2_000;
/** Query vectors kept, so a plan tried again (an outage, a retry) does not pay for its query twice. */
const QUERY_CACHE = 32;

/** A plan's query as a vector, compared with the memories a chat may show (recall.ts). */
export interface QueryMeaning {
  /** The nearest memories the viewer may see, nearest first; empty (logged) if the query failed: the plan recalls by words. */
  nearest(v: MemoryViewer, limit: number): NearMemory[];
}

/** `/status`'s line: the memories embedded of all, with what; or why it is off. */
export type MeaningStatus =
  { readonly key: string; readonly embedded: number; readonly total: number } | { readonly off: string };

export interface MemoryMeaningOptions {
  readonly embedder: Embedder;
  readonly vectors: MemoryVectorStore;
  readonly memories: Pick<MemoryStore, "onChange">;
  readonly clock: Clock;
  readonly logger: Logger;
  /** True while no background call may be made: the day's token budget spent (policy/caps.ts), the owner's /pause everywhere. */
  readonly held?: () => boolean;
  readonly batch?: number;
  readonly gapMs?: number;
}

export class MemoryMeaning {
  private readonly log: Logger;
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;
  private running = false;
  private stopped = true;
  private failures = 0;
  private unsubscribe: (() => void) | undefined;
  private lastProgress = Number.NEGATIVE_INFINITY;
  private backlogStart: number | undefined;
  private readonly queries = new Map<string, Float32Array>();

  constructor(private readonly o: MemoryMeaningOptions) {
    this.log = o.logger.child({ component: "memory" });
  }

  /** Whether recall can be by meaning here (the extension loaded). */
  get available(): boolean {
    return this.o.vectors.unavailable === undefined;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (!this.available) {
      this.log.warn(
        { reason: this.o.vectors.unavailable },
        `recall by meaning is off: the sqlite-vec extension did not load (${this.o.vectors.unavailable}); memories are found by their words`,
      );
      return;
    }
    this.unsubscribe = this.o.memories.onChange(() => this.kick());
    this.warnOtherKey();
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  /** How far the memories are embedded (`/status`), or why recall is by words only. */
  status(): MeaningStatus {
    if (!this.available)
      return { off: `the sqlite-vec extension did not load (${this.o.vectors.unavailable})` };
    const p = this.o.vectors.progress(this.o.embedder.key);
    return { key: this.o.embedder.key, embedded: p.embedded, total: p.total };
  }

  /** A memory was stored or edited: embed the backlog soon (after the gap since the last call). */
  kick(): void {
    if (this.stopped || !this.available || this.failures > 0) return;
    this.schedule(0);
  }

  /**
   * The plan's query as a vector: one call, bounded; undefined (recall by words only) when recall
   * cannot be by meaning or the call failed. Never throws.
   */
  async queryVector(text: string, chatId: string): Promise<QueryMeaning | undefined> {
    if (!this.available) return undefined;
    const query = text.trim().slice(0, QUERY_CHARS);
    // Nothing embedded yet (no memories, or all pending): no call for nothing to compare with.
    if (query === "" || !this.o.vectors.hasAny(this.o.embedder.key)) return undefined;
    const cacheKey = `${this.o.embedder.key}\n${query}`;
    let vector = this.queries.get(cacheKey);
    if (vector === undefined) {
      try {
        [vector] = await this.o.embedder.embed({
          texts: [query],
          task: "query",
          chatId,
          timeoutMs: QUERY_TIMEOUT_MS,
        });
      } catch (e) {
        this.log.info(
          { chatId, err: errorMessage(e) },
          "the query could not be embedded; memories are recalled by their words for this plan",
        );
        return undefined;
      }
      if (vector === undefined) return undefined;
      this.queries.set(`${this.o.embedder.key}\n${query}`, vector);
      if (this.queries.size > QUERY_CACHE) this.queries.delete(this.queries.keys().next().value!);
    }
    const key = this.o.embedder.key;
    const found = vector;
    return {
      nearest: (v, limit) => {
        try {
          return this.o.vectors.nearest(v, key, found, limit);
        } catch (e) {
          this.log.error(
            { chatId, err: errorMessage(e) },
            "recall by meaning failed; this plan recalls by words",
          );
          return [];
        }
      },
    };
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    const at = this.o.clock.now() + ms;
    if (this.timer !== undefined && this.timerAt <= at) return;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = this.o.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      void this.step();
    }, ms);
  }

  /** One background call: the newest pending memories, embedded and kept. */
  private async step(): Promise<void> {
    if (this.running || this.stopped) return;
    if (this.o.held?.() === true) {
      this.schedule(HELD_MS);
      return;
    }
    this.running = true;
    const gap = this.o.gapMs ?? GAP_MS;
    try {
      const pending = this.o.vectors.pending(this.o.embedder.key, this.o.batch ?? BATCH);
      if (pending.length === 0) {
        if (this.backlogStart !== undefined) {
          const p = this.o.vectors.progress(this.o.embedder.key);
          this.log.info(
            { embedded: p.embedded, key: this.o.embedder.key },
            `every memory is embedded (${p.embedded})`,
          );
          this.backlogStart = undefined;
        }
        return;
      }
      let vectors: Float32Array[];
      try {
        vectors = await this.o.embedder.embed({ texts: pending.map((m) => m.content), task: "document" });
      } catch (e) {
        this.failures++;
        const waitMs = Math.min(MAX_BACKOFF_MS, gap * 2 ** this.failures);
        // One warning per run of failures; the memories stay pending (found by their words).
        this.log[this.failures === 1 ? "warn" : "info"](
          { err: errorMessage(e), pending: pending.length, retryInMs: waitMs, failures: this.failures },
          "embedding memories failed; they are found by their words and embedded later",
        );
        this.schedule(waitMs);
        return;
      }
      this.failures = 0;
      if (this.stopped) return;
      const key = this.o.embedder.key;
      const now = this.o.clock.now();
      pending.forEach((m, i) => this.o.vectors.put(m, key, vectors[i]!, now));
      this.report(key);
      this.schedule(gap);
    } catch (e) {
      // The store failed (a busy or full disk): try again later, like a failed call.
      this.log.error({ err: errorMessage(e) }, "embedding memories: the store failed; trying again later");
      this.schedule(MAX_BACKOFF_MS);
    } finally {
      this.running = false;
    }
  }

  /** The one warning when vectors of another model or size are stored (read once, at start). */
  private warnOtherKey(): void {
    const key = this.o.embedder.key;
    let other: number;
    try {
      other = this.o.vectors.progress(key).otherKey;
    } catch (e) {
      this.log.error({ err: errorMessage(e) }, "embedding memories: cannot read their progress");
      return;
    }
    if (other === 0) return;
    this.log.warn(
      { key, otherKey: other },
      `the embedding model changed (now ${key}): ${other} memories are found by their words until they are embedded again in the background`,
    );
  }

  /** Progress of a backlog in the log (at most every PROGRESS_EVERY_MS). */
  private report(key: string): void {
    const now = this.o.clock.now();
    const first = this.backlogStart === undefined;
    if (!first && now - this.lastProgress < PROGRESS_EVERY_MS) return;
    const p = this.o.vectors.progress(key);
    if (first && p.embedded >= p.total) return;
    this.backlogStart ??= now;
    this.lastProgress = now;
    this.log.info(
      { embedded: p.embedded, total: p.total, key },
      `embedding memories in the background: ${p.embedded} of ${p.total}`,
    );
  }
}
