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
 * - **One refused text holds nothing back**: a failed batch is tried one memory at a time; one the
 *   provider refuses on its own (a 400, or too long for a local server) is skipped for an hour,
 *   doubled at each refusal up to a day (store/memory-vectors.ts `refused`), while the others are
 *   embedded. Texts are cut to {@link MEMORY_CHARS} characters first.
 * - **A model of one size replaced under its name** (`openai:<model>`): its size is learnt from the
 *   answers (a small probe at start when nothing else is pending), and a stored vector of another
 *   size is pending again, with one warning.
 * - **One warning** when recall cannot be by meaning here (the sqlite-vec extension did not load:
 *   nothing is embedded, recall is by words), and one when vectors of another model are found
 *   (those memories are found by their words until embedded again).
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { errorMessage } from "../base/error-message";
import type { Embedder } from "../llm/embedder";
import type { MemoryStore, MemoryViewer } from "../store/memories";
import type { MemoryVectorStore, NearMemory, PendingMemory } from "../store/memory-vectors";

/** Memories per embedding call. */
const BATCH = 16;
/** Between two background calls (so the backlog after an upgrade costs at most BATCH memories per gap). */
const GAP_MS = 2_000;
/** The longest wait after failed calls. */
const MAX_BACKOFF_MS = 10 * 60_000;
/**
 * While the day's token budget is spent or the owner paused everything, look again this often (a
 * settings read and the budget's sum): the owner's /resume, from the chat or the console, lets it
 * go on within a minute.
 */
const HELD_MS = 60_000;
/** Progress lines at most this often while a backlog is embedded. */
const PROGRESS_EVERY_MS = 30_000;
/** The deadline of a plan's query embedding (planning waits no longer for it). */
const QUERY_TIMEOUT_MS = 3_000;
/** After a plan's query failed (a hung endpoint), plans go by words for this long without trying. */
const QUERY_PAUSE_MS = 5 * 60_000;
/** Characters of a plan's query that are embedded (the messages answered; the start says most). */
const QUERY_CHARS = 2_000;
/**
 * Characters of a memory that are embedded: a note longer than a local server's batch (llama-server
 * takes 512 tokens by default) would be refused, and the start says what it is about.
 */
const MEMORY_CHARS = 1_500;
/** A memory the provider refused on its own is skipped this long, doubled at each refusal in a row… */
const REFUSED_SKIP_MS = 60 * 60_000;
/** …up to this. */
const MAX_REFUSED_SKIP_MS = 24 * 60 * 60_000;
/** HTTP statuses that refuse the text itself (not the provider failing). */
const REFUSES_TEXT = new Set([400, 413, 422]);
/** Query vectors kept, so a plan tried again (an outage, a retry) does not pay for its query twice. */
const QUERY_CACHE = 32;

/** At most `n` characters, never half of a surrogate pair. */
function cut(text: string, n: number): string {
  if (text.length <= n) return text;
  const c = text.charCodeAt(n - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n);
}

/** The HTTP status of an SDK's error (both SDKs give one), if any. */
const statusOf = (e: unknown): unknown => (e as { status?: unknown } | null)?.status;

/** A plan's query as a vector, compared with the memories a chat may show (recall.ts). */
export interface QueryMeaning {
  /** The nearest memories the viewer may see, nearest first; empty (logged) if the query failed: the plan recalls by words. */
  nearest(v: MemoryViewer, limit: number): NearMemory[];
}

/** `/status`'s line: the memories embedded of all, with what; or why it is off. */
export type MeaningStatus =
  | {
      readonly key: string;
      readonly embedded: number;
      readonly total: number;
      /** Memories the provider refused on their own, skipped for now (tried again later). */
      readonly skipped?: number;
      /** The latest failed call since the last one that embedded (when, and why). */
      readonly lastFailure?: { readonly at: number; readonly error: string };
    }
  | { readonly off: string };

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
  /** After a batch failed: its memories, tried one at a time (one refused text must not hold back the others). */
  private singles: PendingMemory[] | undefined;
  private singlesOk = false;
  private singlesRefused: { readonly m: PendingMemory; readonly err: unknown }[] = [];
  private lastCallAt = Number.NEGATIVE_INFINITY;
  private lastFailure: { readonly at: number; readonly error: string } | undefined;
  /** Whether lastFailure is a memory refused on its own (kept after later calls embed others). */
  private lastFailureRefused = false;
  private queryPausedUntil = Number.NEGATIVE_INFINITY;
  /** The live size last seen (a change of it under the same key is warned about once). */
  private knownDims: number | undefined;

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
    const key = this.o.embedder.key;
    const p = this.o.vectors.progress(key, this.o.embedder.dimensions);
    const skipped = this.o.vectors.skipped(key, this.o.clock.now()).count;
    return {
      key,
      embedded: p.embedded,
      total: p.total,
      ...(skipped > 0 ? { skipped } : {}),
      ...(this.lastFailure !== undefined && (!this.lastFailureRefused || skipped > 0)
        ? { lastFailure: this.lastFailure }
        : {}),
    };
  }

  /** A memory was stored or edited, or the owner resumed: embed the backlog soon (after the gap since the last call). */
  kick(): void {
    if (this.stopped || !this.available || this.failures > 0) return;
    const gap = this.o.gapMs ?? GAP_MS;
    this.schedule(Math.max(0, this.lastCallAt + gap - this.o.clock.now()));
  }

  /**
   * The plan's query as a vector: one call, bounded; undefined (recall by words only) when recall
   * cannot be by meaning or the call failed. Never throws.
   */
  async queryVector(text: string, chatId: string): Promise<QueryMeaning | undefined> {
    if (!this.available) return undefined;
    const query = text.trim().slice(0, QUERY_CHARS);
    if (query === "") return undefined;
    // The provider is failing (the background's calls, or a recent query timed out): plans go by
    // words without waiting for a call that would likely fail too.
    if (this.failures > 0 || this.o.clock.now() < this.queryPausedUntil) return undefined;
    try {
      // Nothing embedded yet (no memories, or all pending): no call for nothing to compare with.
      if (!this.o.vectors.hasAny(this.o.embedder.key, this.o.embedder.dimensions)) return undefined;
    } catch (e) {
      this.log.error(
        { chatId, err: errorMessage(e) },
        "recall by meaning failed; this plan recalls by words",
      );
      return undefined;
    }
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
        this.queryPausedUntil = this.o.clock.now() + QUERY_PAUSE_MS;
        this.log.info(
          { chatId, err: errorMessage(e), pauseMs: QUERY_PAUSE_MS },
          "the query could not be embedded; memories are recalled by their words (plans do not try again for a few minutes)",
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
      if (this.singles !== undefined) {
        await this.single(gap);
        return;
      }
      const key = this.o.embedder.key;
      const pending = this.o.vectors.pending(key, this.o.batch ?? BATCH, {
        ...(this.o.embedder.dimensions !== undefined ? { dims: this.o.embedder.dimensions } : {}),
        now: this.o.clock.now(),
      });
      if (pending.length === 0) {
        // A model of one size whose size is not known yet, with vectors stored: one small call
        // learns it, so vectors of an older size under the same name are embedded again.
        if (this.o.embedder.dimensions === undefined && this.o.vectors.hasAny(key)) {
          await this.probe(gap);
          return;
        }
        // A memory refused on its own is tried again when its time comes.
        const { nextAt } = this.o.vectors.skipped(key, this.o.clock.now());
        if (nextAt !== undefined) this.schedule(Math.max(gap, nextAt - this.o.clock.now()));
        if (this.backlogStart !== undefined) {
          const p = this.o.vectors.progress(key, this.o.embedder.dimensions);
          this.log.info({ embedded: p.embedded, key }, `every memory is embedded (${p.embedded})`);
          this.backlogStart = undefined;
        }
        return;
      }
      let vectors: Float32Array[];
      try {
        vectors = await this.call(pending);
      } catch (e) {
        if (this.stopped) return;
        if (pending.length > 1) {
          // One text the provider refuses (too long for a local server, a 400) fails the whole
          // batch: each is tried alone, at the same pace, so the others are embedded.
          this.singles = [...pending];
          this.singlesOk = false;
          this.singlesRefused = [];
          this.log.info(
            { err: errorMessage(e), pending: pending.length },
            "embedding a batch of memories failed; trying them one at a time",
          );
          this.schedule(gap);
          return;
        }
        if (REFUSES_TEXT.has(statusOf(e) as number)) this.refuse([{ m: pending[0]!, err: e }]);
        else this.failed(e, pending.length);
        return;
      }
      if (this.stopped) return;
      this.keep(pending, vectors);
      this.schedule(gap);
    } catch (e) {
      // The store failed (a busy or full disk): try again later, like a failed call.
      this.log.error({ err: errorMessage(e) }, "embedding memories: the store failed; trying again later");
      this.schedule(MAX_BACKOFF_MS);
    } finally {
      this.running = false;
    }
  }

  /** One memory of a failed batch, alone; at the end of the batch, the ones refused on their own are skipped for a while. */
  private async single(gap: number): Promise<void> {
    const m = this.singles!.shift()!;
    try {
      const vectors = await this.call([m]);
      this.singlesOk = true;
      if (this.stopped) return;
      this.keep([m], vectors);
    } catch (e) {
      this.singlesRefused.push({ m, err: e });
    }
    if (this.stopped) return;
    if (this.singles!.length > 0) {
      this.schedule(gap);
      return;
    }
    this.singles = undefined;
    const refused = this.singlesRefused;
    this.singlesRefused = [];
    // Refused for its text: a 400 (413, 422), or a 500 while others of the batch were embedded
    // (a local server's "input too large"). An outage, a rate limit or a timeout marks nothing.
    const own = refused.filter(
      (r) => REFUSES_TEXT.has(statusOf(r.err) as number) || (this.singlesOk && statusOf(r.err) === 500),
    );
    this.refuse(own);
    if (own.length < refused.length) {
      // The others failed with the provider: backed off, still pending.
      this.failed(refused.find((r) => !own.includes(r))!.err, refused.length - own.length);
      return;
    }
    this.schedule(gap);
  }

  /** Memories the provider refused on their own: skipped for a while (the others go on); one warning each. */
  private refuse(refused: readonly { readonly m: PendingMemory; readonly err: unknown }[]): void {
    const now = this.o.clock.now();
    const key = this.o.embedder.key;
    for (const { m, err } of refused) {
      const r = this.o.vectors.refused(m.id, key, now, {
        skipMs: REFUSED_SKIP_MS,
        maxSkipMs: MAX_REFUSED_SKIP_MS,
      });
      if (r === undefined) continue;
      this.lastFailure = { at: now, error: errorMessage(err).slice(0, 200) };
      this.lastFailureRefused = true;
      this.log.warn(
        { memoryId: m.id, err: errorMessage(err), attempts: r.attempts, retryInMs: r.retryAt - now },
        "the embedding provider refused one memory; it is found by its words, the others are embedded, and it is tried again later",
      );
    }
    if (refused.length > 0) this.schedule(this.o.gapMs ?? GAP_MS);
  }

  /** One small call that tells a model's size (see step). */
  private async probe(gap: number): Promise<void> {
    try {
      await this.o.embedder.embed({ texts: ["memory"], task: "document" });
      this.lastCallAt = this.o.clock.now();
    } catch (e) {
      this.lastCallAt = this.o.clock.now();
      this.failed(e, 0);
      return;
    }
    this.failures = 0;
    this.warnOtherSize();
    this.schedule(gap);
  }

  /** The embedding call of some memories (each cut to {@link MEMORY_CHARS}). */
  private async call(ms: readonly PendingMemory[]): Promise<Float32Array[]> {
    try {
      return await this.o.embedder.embed({
        texts: ms.map((m) => cut(m.content, MEMORY_CHARS)),
        task: "document",
      });
    } finally {
      this.lastCallAt = this.o.clock.now();
    }
  }

  /** Vectors answered: kept (by the memory's full text: an edit meanwhile leaves it pending), progress told. */
  private keep(ms: readonly PendingMemory[], vectors: readonly Float32Array[]): void {
    this.failures = 0;
    if (!this.lastFailureRefused) this.lastFailure = undefined;
    const key = this.o.embedder.key;
    const now = this.o.clock.now();
    this.warnOtherSize();
    ms.forEach((m, i) => this.o.vectors.put(m, key, vectors[i]!, now));
    this.report(key);
  }

  /** The provider failed (not one text): back off, one warning per run of failures; the memories stay pending. */
  private failed(e: unknown, pending: number): void {
    this.failures++;
    const waitMs = Math.min(MAX_BACKOFF_MS, (this.o.gapMs ?? GAP_MS) * 2 ** this.failures);
    this.lastFailure = { at: this.o.clock.now(), error: errorMessage(e).slice(0, 200) };
    this.lastFailureRefused = false;
    this.log[this.failures === 1 ? "warn" : "info"](
      { err: errorMessage(e), pending, retryInMs: waitMs, failures: this.failures },
      "embedding memories failed; they are found by their words and embedded later",
    );
    this.schedule(waitMs);
  }

  /** One warning when the model answers another size than its stored vectors have (a local model replaced under its name). */
  private warnOtherSize(): void {
    const dims = this.o.embedder.dimensions;
    if (dims === undefined || dims === this.knownDims) return;
    this.knownDims = dims;
    const key = this.o.embedder.key;
    const other = this.o.vectors.progress(key, dims).otherKey - this.o.vectors.progress(key).otherKey;
    if (other <= 0) return;
    this.log.warn(
      { key, dimensions: dims, otherSize: other },
      `the embedding model ${key} now answers ${dims} dimensions: ${other} memories are found by their words until they are embedded again in the background`,
    );
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
    const p = this.o.vectors.progress(key, this.o.embedder.dimensions);
    if (first && p.embedded >= p.total) return;
    this.backlogStart ??= now;
    this.lastProgress = now;
    this.log.info(
      { embedded: p.embedded, total: p.total, key },
      `embedding memories in the background: ${p.embedded} of ${p.total}`,
    );
  }
}
