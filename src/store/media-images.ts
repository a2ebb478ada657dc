/**
 * Small pictures sent inline with planning requests (media/inline-images.ts), keyed by file unique
 * id and shared by every persona like the description cache: a photo asked about in two chats is
 * downloaded once. Bounded: only pictures up to {@link MAX_IMAGE_BYTES}, and at most
 * {@link MAX_IMAGES} rows (the oldest go first).
 */
import type { Db } from "./db";

/** Pictures larger than this are not kept (nor sent inline: the description stands). */
const MAX_IMAGE_BYTES = 512 * 1024;
/** Rows kept; each insert beyond drops the oldest. */
const MAX_IMAGES = 200;

export interface CachedImage {
  readonly mime: string;
  readonly bytes: Buffer;
}

export class MediaImages {
  private readonly getStmt;
  private readonly putStmt;
  private readonly trimStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare(`SELECT mime, bytes FROM media_images WHERE unique_id = ?`);
    this.putStmt = db.prepare(
      `INSERT INTO media_images (unique_id, mime, bytes, at) VALUES (?, ?, ?, ?)
       ON CONFLICT (unique_id) DO UPDATE SET mime = excluded.mime, bytes = excluded.bytes, at = excluded.at`,
    );
    this.trimStmt = db.prepare(
      `DELETE FROM media_images WHERE unique_id IN (SELECT unique_id FROM media_images ORDER BY at DESC LIMIT -1 OFFSET ?)`,
    );
  }

  get(uniqueId: string): CachedImage | undefined {
    const r = this.getStmt.get(uniqueId) as { mime: string; bytes: Buffer } | undefined;
    return r ? { mime: r.mime, bytes: r.bytes } : undefined;
  }

  /** Keep a picture (false when it is too large to keep). */
  put(uniqueId: string, image: CachedImage, at: number): boolean {
    if (image.bytes.length > MAX_IMAGE_BYTES) return false;
    this.putStmt.run(uniqueId, image.mime, image.bytes, at);
    this.trimStmt.run(MAX_IMAGES);
    return true;
  }
}
