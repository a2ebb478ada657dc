/**
 * Sticker sets the emulator knows: what messages.GetStickerSet lists and messages.SendMedia
 * accepts as an InputMediaDocument.
 */
import type { StickerDoc, StickerSetRecord } from "./stored-message";
import { accessHashFor } from "./access-hash";
import { stillFor, TINY_WEBP, type FileStore } from "./file-store";

// Document ids look like Telegram's (large) and stay below 2^53.
const FIRST_DOCUMENT_ID = 7_000_000_000_001;

/** All added sticker sets and their documents. */
export class StickerCatalog {
  private readonly sets = new Map<string, StickerSetRecord>();
  private readonly docs = new Map<number, StickerDoc>();
  private nextId = FIRST_DOCUMENT_ID;

  constructor(private readonly files: FileStore) {}

  add(o: {
    shortName: string;
    title: string;
    /** `thumb`: an animated or video sticker's still (default a tiny WebP; null: none). */
    stickers: readonly { emoji: string; bytes?: Buffer; mimeType?: string; thumb?: Buffer | null }[];
  }): StickerSetRecord {
    const key = o.shortName.toLowerCase();
    if (this.sets.has(key)) throw new Error(`emulator: sticker set ${o.shortName} exists`);
    const setId = this.nextId++;
    const set: StickerSetRecord = {
      id: setId,
      accessHash: accessHashFor(setId, 3),
      shortName: o.shortName,
      title: o.title,
      docs: [],
    };
    for (const s of o.stickers) {
      const id = this.nextId++;
      const mime = s.mimeType ?? "image/webp";
      const file = this.files.add(s.bytes ?? TINY_WEBP, mime, id, stillFor(mime, "sticker", s.thumb));
      const doc: StickerDoc = { id, accessHash: file.accessHash, file, emoji: s.emoji, set };
      set.docs.push(doc);
      this.docs.set(id, doc);
    }
    this.sets.set(key, set);
    return set;
  }

  /** Short names are case-insensitive on Telegram. */
  byShortName(shortName: string): StickerSetRecord | undefined {
    return this.sets.get(shortName.toLowerCase());
  }

  byId(id: number): StickerSetRecord | undefined {
    for (const set of this.sets.values()) if (set.id === id) return set;
    return undefined;
  }

  doc(id: number): StickerDoc | undefined {
    return this.docs.get(id);
  }

  /** A set with this sticker: the set is created, or the sticker added to it, when missing. */
  ensure(shortName: string, emoji: string): StickerDoc {
    const found = this.byEmoji(shortName, emoji);
    if (found) return found;
    const set = this.byShortName(shortName);
    if (!set) return this.add({ shortName, title: shortName, stickers: [{ emoji }] }).docs[0]!;
    const id = this.nextId++;
    const file = this.files.add(TINY_WEBP, "image/webp", id);
    const doc: StickerDoc = { id, accessHash: file.accessHash, file, emoji, set };
    set.docs.push(doc);
    this.docs.set(id, doc);
    return doc;
  }

  /** The sticker of a set with this emoji (the first one), or undefined. */
  byEmoji(shortName: string, emoji: string): StickerDoc | undefined {
    return this.byShortName(shortName)?.docs.find((d) => d.emoji === emoji);
  }
}
