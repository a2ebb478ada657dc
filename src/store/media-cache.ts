/**
 * The AI description cache: one row per file unique id, shared by every persona (a photo looks
 * the same to all of them). "unsupported" verdicts are rows too, so a file the AI cannot read is
 * never tried again.
 */
import type { Db } from "./db";

export interface CachedMedia {
  readonly uniqueId: string;
  readonly kind: string;
  readonly status: "ok" | "unsupported";
  readonly description?: string;
  readonly stickerSet?: string;
  readonly model?: string;
}

interface Row {
  unique_id: string;
  kind: string;
  status: "ok" | "unsupported";
  description: string | null;
  sticker_set: string | null;
  model: string | null;
}

export class MediaCache {
  private readonly getStmt;
  private readonly putStmt;
  private readonly dropStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare(
      `SELECT unique_id, kind, status, description, sticker_set, model FROM media_descriptions WHERE unique_id = ?`,
    );
    this.putStmt = db.prepare(
      `INSERT INTO media_descriptions (unique_id, kind, status, description, sticker_set, model, at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (unique_id) DO UPDATE SET kind = excluded.kind, status = excluded.status, description = excluded.description,
         sticker_set = coalesce(excluded.sticker_set, media_descriptions.sticker_set), model = excluded.model, at = excluded.at`,
    );
    this.dropStmt = db.prepare(`DELETE FROM media_descriptions WHERE unique_id = ?`);
  }

  /** Forget a file's description (the console's "describe again"): the next sight of it asks anew. */
  drop(uniqueId: string): boolean {
    return this.dropStmt.run(uniqueId).changes > 0;
  }

  get(uniqueId: string): CachedMedia | undefined {
    const r = this.getStmt.get(uniqueId) as Row | undefined;
    if (!r) return undefined;
    return {
      uniqueId: r.unique_id,
      kind: r.kind,
      status: r.status,
      ...(r.description != null ? { description: r.description } : {}),
      ...(r.sticker_set != null ? { stickerSet: r.sticker_set } : {}),
      ...(r.model != null ? { model: r.model } : {}),
    };
  }

  put(e: CachedMedia, at: number): void {
    this.putStmt.run(
      e.uniqueId,
      e.kind,
      e.status,
      e.description ?? null,
      e.stickerSet ?? null,
      e.model ?? null,
      at,
    );
  }
}
