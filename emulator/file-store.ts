/**
 * Files the emulated server stores (photos, documents, sticker files), with Telegram's file
 * references: a reference is handed out inside every message or sticker set that shows the file,
 * and `upload.getFile` accepts only the current one. `expire()` rotates it, as Telegram's
 * references go stale (then FILE_REFERENCE_EXPIRED); refetching the message shows the new one.
 */
import { accessHashFor } from "./access-hash";

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
}

/** The data centre stored files live on: not an account's home DC (4), so a download meets FILE_MIGRATE. */
export const FILE_DC = 2;

// File ids look like Telegram's (large) and stay below 2^53; apart from sticker-set ids.
const FIRST_FILE_ID = 5_000_000_000_001;

export class FileStore {
  private readonly files = new Map<number, FileRecord>();
  private nextId = FIRST_FILE_ID;

  add(bytes: Buffer, mimeType: string, id = this.nextId++): FileRecord {
    const rec: FileRecord = {
      id,
      accessHash: accessHashFor(id, 5),
      fileReference: reference(id, 0),
      bytes,
      mimeType,
      dcId: FILE_DC,
      generation: 0,
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
