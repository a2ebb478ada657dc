/**
 * Memory by meaning, the store's half (docs/memory.md "Recall by meaning"): one embedding per
 * memory in `memory_vectors` (same SQLite file, so backups and retention cover it), ranked by the
 * sqlite-vec extension's `vec_distance_cosine` inside the query that also applies the chat's scope
 * ({@link VISIBLE_IDS}, the same rules as the full-text search): a memory a chat may not show is
 * never a candidate, so it can never be a nearest neighbour there.
 *
 * Each vector names what made it (`provider:model@dimensions`, the embedder's key): a query only
 * compares vectors of the current key, so a model or dimension change never mixes spaces; the
 * others are "pending" and embedded again in the background (memory/meaning.ts). A memory with no
 * vector of the current key (new, reworded — a trigger drops its vector —, or a failed embedding
 * call) is pending too: it is still found by its words meanwhile.
 *
 * The vectors are compared by brute force over the chat's visible memories, the newest
 * {@link MAX_COMPARED} of them (sqlite-vec's own `vec0` tables are brute force too, and could not
 * apply our scopes inside the query).
 */
import { load as loadSqliteVec } from "sqlite-vec";
import { errorMessage } from "../base/error-message";
import type { Db } from "./db";
import {
  toMemory,
  VISIBLE_IDS,
  viewerParams,
  type Memory,
  type MemoryRow,
  type MemoryViewer,
} from "./memories";

/**
 * At most this many of the chat's newest visible memories are compared by meaning per query: the
 * comparison is brute force and runs on the event loop, so its cost is bounded (bench
 * `recallLatency`); older ones are still found by their words.
 */
const MAX_COMPARED = 20_000;

/** Whether the extension loaded into this connection, once per connection. */
const loaded = new WeakMap<Db, { readonly ok: true } | { readonly ok: false; readonly reason: string }>();

/**
 * Load sqlite-vec into the connection (once). Undefined when it loaded, else why not (a platform
 * without its prebuilt binary, extension loading refused): then recall is by words only.
 */
function loadVectorExtension(db: Db, load: (db: Db) => void = loadSqliteVec): string | undefined {
  let state = loaded.get(db);
  if (state === undefined) {
    try {
      load(db);
      db.prepare("SELECT vec_version()").get();
      state = { ok: true };
    } catch (e) {
      state = { ok: false, reason: errorMessage(e) };
    }
    loaded.set(db, state);
  }
  return state.ok ? undefined : state.reason;
}

/** A memory waiting for its embedding (no vector of the current key). */
export interface PendingMemory {
  readonly id: number;
  readonly content: string;
}

/** How far the embeddings of one key have come. */
export interface VectorProgress {
  readonly total: number;
  /** Memories with a vector of the current key. */
  readonly embedded: number;
  /** Memories whose vector is of another key (an earlier model or dimension). */
  readonly otherKey: number;
}

type NearRow = MemoryRow & { distance: number };

/** A memory and its cosine distance to the query (0: the same direction, 2: opposite). */
export interface NearMemory {
  readonly memory: Memory;
  readonly distance: number;
}

/** The embeddings of one persona's memories. */
export class MemoryVectorStore {
  /** Why vectors cannot be compared here (the extension did not load); undefined when they can. */
  readonly unavailable: string | undefined;
  private readonly pendingStmt;
  private readonly putStmt;
  private readonly progressStmt;
  private readonly nearStmt;
  private readonly anyStmt;
  private readonly failStmt;
  private readonly clearFailStmt;
  private readonly skippedStmt;

  constructor(
    db: Db,
    private readonly agent: string,
    o: { readonly load?: (db: Db) => void } = {},
  ) {
    this.unavailable = loadVectorExtension(db, o.load);
    // Newest first: what was just said is the likeliest to be asked about. A vector of the key but
    // not of the live size (a local model replaced under its name) is pending too; a memory the
    // provider refused on its own is skipped until its retry time.
    this.pendingStmt = db.prepare(
      `SELECT m.id, m.content FROM memories m
       LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.model = @model AND (@bytes IS NULL OR length(v.vec) = @bytes)
       LEFT JOIN memory_embed_failures f ON f.memory_id = m.id AND f.model = @model AND f.retry_at > @now
       WHERE m.agent = @agent AND v.memory_id IS NULL AND f.memory_id IS NULL ORDER BY m.id DESC LIMIT @limit`,
    );
    this.failStmt = db.prepare(
      `INSERT INTO memory_embed_failures (memory_id, agent, model, attempts, failed_at, retry_at)
       SELECT id, agent, @model, 1, @now, @now + @skipMs FROM memories WHERE id = @id AND agent = @agent
       ON CONFLICT (memory_id) DO UPDATE SET
         attempts = CASE WHEN model = excluded.model THEN attempts + 1 ELSE 1 END,
         model = excluded.model, failed_at = excluded.failed_at,
         retry_at = excluded.failed_at + min(@maxSkipMs, @skipMs * (1 << min(20, CASE WHEN model = excluded.model THEN attempts ELSE 0 END)))
       RETURNING attempts, retry_at`,
    );
    this.clearFailStmt = db.prepare(`DELETE FROM memory_embed_failures WHERE memory_id = ?`);
    this.skippedStmt = db.prepare(
      `SELECT count(*) AS n, min(retry_at) AS next FROM memory_embed_failures WHERE agent = ? AND model = ? AND retry_at > ?`,
    );
    // Only while the memory still reads as embedded: an edit meanwhile leaves it pending.
    this.putStmt = db.prepare(
      `INSERT OR REPLACE INTO memory_vectors (memory_id, agent, model, vec, embedded_at)
       SELECT id, agent, @model, @vec, @now FROM memories WHERE id = @id AND agent = @agent AND content = @content`,
    );
    this.anyStmt = db
      .prepare(
        `SELECT 1 FROM memory_vectors WHERE agent = @agent AND model = @model AND (@bytes IS NULL OR length(vec) = @bytes) LIMIT 1`,
      )
      .pluck();
    this.progressStmt = db.prepare(
      `SELECT count(*) AS total, count(v.memory_id) AS embedded,
              coalesce(sum(v.memory_id IS NOT NULL AND (v.model IS NOT @model OR (@bytes IS NOT NULL AND length(v.vec) != @bytes))), 0) AS other
       FROM memories m LEFT JOIN memory_vectors v ON v.memory_id = m.id WHERE m.agent = @agent`,
    );
    this.nearStmt =
      this.unavailable === undefined
        ? db.prepare(
            `SELECT m.*, vec_distance_cosine(v.vec, @query) AS distance
             FROM memory_vectors v JOIN memories m ON m.id = v.memory_id
             WHERE v.agent = @agent AND v.model = @model AND length(v.vec) = length(@query) AND m.agent = @agent
               AND m.id IN (SELECT id FROM (${VISIBLE_IDS}) ORDER BY id DESC LIMIT ${MAX_COMPARED})
             ORDER BY distance, m.updated_at DESC LIMIT @limit`,
          )
        : undefined;
  }

  /**
   * Memories without a vector of `model` (the embedder's key) — of `dims` numbers when the live
   * size is known —, newest first, but for those refused on their own whose retry time is after `now`.
   */
  pending(
    model: string,
    limit: number,
    o: { readonly dims?: number; readonly now?: number } = {},
  ): PendingMemory[] {
    return this.pendingStmt.all({
      agent: this.agent,
      model,
      limit,
      bytes: bytesOf(o.dims),
      now: o.now ?? Number.NEGATIVE_INFINITY,
    }) as PendingMemory[];
  }

  /** Keep a memory's vector; false when the memory is gone or was reworded since `content` was read. */
  put(m: PendingMemory, model: string, vec: Float32Array, now: number): boolean {
    const kept =
      this.putStmt.run({ id: m.id, agent: this.agent, content: m.content, model, vec: toBlob(vec), now })
        .changes > 0;
    if (kept) this.clearFailStmt.run(m.id);
    return kept;
  }

  /**
   * The provider refused this memory on its own: skip it for `skipMs`, doubled at each refusal in
   * a row, at most `maxSkipMs`. Returns the refusals in a row and when it is tried again
   * (undefined when the memory is gone).
   */
  refused(
    id: number,
    model: string,
    now: number,
    o: { readonly skipMs: number; readonly maxSkipMs: number },
  ): { readonly attempts: number; readonly retryAt: number } | undefined {
    const r = this.failStmt.get({ id, agent: this.agent, model, now, ...o }) as
      { attempts: number; retry_at: number } | undefined;
    return r && { attempts: r.attempts, retryAt: r.retry_at };
  }

  /** Memories of `model` skipped at `now` (refused on their own, not yet tried again), and when the first is tried again. */
  skipped(model: string, now: number): { readonly count: number; readonly nextAt: number | undefined } {
    const r = this.skippedStmt.get(this.agent, model, now) as { n: number; next: number | null };
    return { count: r.n, nextAt: r.next ?? undefined };
  }

  /** Whether any memory has a vector of `model` (of `dims` numbers when known): one indexed look-up, a plan's query is embedded only then. */
  hasAny(model: string, dims?: number): boolean {
    return this.anyStmt.get({ agent: this.agent, model, bytes: bytesOf(dims) }) !== undefined;
  }

  /** How far `model`'s vectors have come; with `dims`, a vector of another size counts as of another key. */
  progress(model: string, dims?: number): VectorProgress {
    const r = this.progressStmt.get({ agent: this.agent, model, bytes: bytesOf(dims) }) as {
      total: number;
      embedded: number;
      other: number;
    };
    return { total: r.total, embedded: r.embedded - r.other, otherKey: r.other };
  }

  /**
   * The memories nearest in meaning to `query` among those the chat may show (the scope is part
   * of the query), nearest first. Empty when the extension is not loaded. Only vectors of the
   * query's size are compared (a model of one size that changed under its name never fails a plan).
   */
  nearest(v: MemoryViewer, model: string, query: Float32Array, limit: number): NearMemory[] {
    if (this.nearStmt === undefined) return [];
    const rows = this.nearStmt.all({
      ...viewerParams(this.agent, v),
      model,
      query: toBlob(query),
      limit,
    }) as NearRow[];
    return rows.map((r) => ({ distance: r.distance, memory: toMemory(r) }));
  }
}

const bytesOf = (dims: number | undefined): number | null => (dims === undefined ? null : dims * 4);

const toBlob = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
