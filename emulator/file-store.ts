/**
 * Files the emulated server stores (photos, documents, sticker files), with Telegram's file
 * references: a reference is handed out inside every message or sticker set that shows the file,
 * and `upload.getFile` accepts only the current one. `expire()` rotates it, as Telegram's
 * references go stale (then FILE_REFERENCE_EXPIRED); refetching the message shows the new one.
 */
import { accessHashFor } from "./access-hash";

/**
 * A still picture Telegram keeps beside a moving file (a GIF, a video, an animated or video
 * sticker): one of the document's `thumbs`, downloaded by its size type
 * (InputDocumentFileLocation.thumb_size).
 */
export interface FileThumb {
  /** The size type ("m": up to 320 px). */
  readonly type: string;
  readonly bytes: Buffer;
  readonly mimeType: "image/jpeg" | "image/webp";
  readonly w: number;
  readonly h: number;
}

/** One stored file. */
export interface FileRecord {
  readonly id: number;
  readonly accessHash: number;
  /** The reference valid now (rotated by `expire`). */
  fileReference: Buffer;
  readonly bytes: Buffer;
  readonly mimeType: string;
  /** The DC the file lives on: upload.getFile elsewhere answers FILE_MIGRATE_X. */
  readonly dcId: number;
  /** How many times the reference was rotated. */
  generation: number;
  /** Its still thumbnail, for documents that have one. */
  readonly thumb?: FileThumb;
}

/** The data centre stored files live on: not an account's home DC (4), so a download meets FILE_MIGRATE. */
export const FILE_DC = 2;

// File ids look like Telegram's (large) and stay below 2^53; apart from sticker-set ids.
const FIRST_FILE_ID = 5_000_000_000_001;

export class FileStore {
  private readonly files = new Map<number, FileRecord>();
  private nextId = FIRST_FILE_ID;

  add(bytes: Buffer, mimeType: string, id = this.nextId++, thumb?: FileThumb): FileRecord {
    const rec: FileRecord = {
      id,
      accessHash: accessHashFor(id, 5),
      fileReference: reference(id, 0),
      bytes,
      mimeType,
      dcId: FILE_DC,
      generation: 0,
      ...(thumb ? { thumb } : {}),
    };
    this.files.set(id, rec);
    return rec;
  }

  get(id: number): FileRecord | undefined {
    return this.files.get(id);
  }

  /** The file's reference goes stale: the old one is refused from now on. */
  expire(id: number): FileRecord {
    const rec = this.files.get(id);
    if (!rec) throw new Error(`emulator: no file ${id}`);
    rec.generation++;
    rec.fileReference = reference(id, rec.generation);
    return rec;
  }
}

function reference(id: number, generation: number): Buffer {
  return Buffer.from(`emu-file-${id}-${generation}`);
}

/** A 1×1 JPEG: the still of a GIF or video unless the test gives its own. */
const TINY_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxD/2Q==",
  "base64",
);

/** A 1×1 lossless WebP: what a sticker file (and an animated sticker's still) holds unless the test gives its own. */
export const TINY_WEBP = Buffer.from("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==", "base64");

/**
 * The still Telegram makes for a moving file: GIFs and videos a JPEG, animated (Lottie) and
 * video stickers a WebP; `given` replaces its bytes, `null` means none (Telegram could not make one).
 */
export function stillFor(mimeType: string, kind: string, given?: Buffer | null): FileThumb | undefined {
  if (given === null) return undefined;
  if (kind === "gif" || kind === "video")
    return { type: "m", bytes: given ?? TINY_JPEG, mimeType: "image/jpeg", w: 320, h: 240 };
  if (kind === "sticker" && (mimeType === "application/x-tgsticker" || mimeType === "video/webm"))
    return { type: "m", bytes: given ?? TINY_WEBP, mimeType: "image/webp", w: 128, h: 128 };
  return undefined;
}
