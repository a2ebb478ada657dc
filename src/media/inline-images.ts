/**
 * The picture a person is asked about: when an addressed message, or the message it replies to,
 * is a photo or a static sticker — or a GIF or an animated or video sticker with a still thumbnail
 * (Telegram's JPEG or WebP beside the file: that still is what is sent, never the moving file) —
 * the planning request carries the picture itself (inline data), not only its description — at most {@link MAX_INLINE_IMAGES}, each at most the image cache's size
 * cap. A picture is downloaded once (the description chain keeps what it downloads, see
 * describer.ts) and kept in the image cache (store/media-images.ts); a failed or slow download
 * leaves the description to speak for it. The history keeps using text descriptions.
 */
import type { Logger } from "pino";
import type { InlineImage } from "../context/history-item";
import { systemClock } from "../base/clock";
import { errorMessage } from "../base/error-message";
import { onTimeout, withTimeout } from "../base/timeout";
import type { MediaImages } from "../store/media-images";
import type { StoredMessage } from "../store/messages";
import type { Clock } from "../base/types";
import type { MediaFetcher } from "./describer";
import type { MediaDescriptor } from "../base/media-descriptor";

/** Pictures per planning request at most. */
const MAX_INLINE_IMAGES = 2;

/** The MIME type of a medium whose file is itself a picture (photos, static stickers), else undefined. */
function pictureMime(d: MediaDescriptor): string | undefined {
  if (!d.uid || !d.file) return undefined;
  if (d.kind === "photo") return "image/jpeg";
  if (
    d.kind === "sticker" &&
    d.sticker?.animated === undefined &&
    (d.mime === undefined || d.mime === "image/webp")
  )
    return "image/webp";
  return undefined;
}

/**
 * What to download for a medium's picture: the file itself (its MIME type known), or the still
 * thumbnail of a GIF or an animated or video sticker (the MIME type read from its bytes).
 */
function pictureOf(d: MediaDescriptor): { media: MediaDescriptor; mime?: string } | undefined {
  if (!d.uid || !d.file) return undefined;
  const mime = pictureMime(d);
  if (mime) return { media: d, mime };
  if (!d.still || (d.kind !== "gif" && d.sticker?.animated === undefined)) return undefined;
  const { size: _file, ...rest } = d;
  return {
    media: {
      ...rest,
      file: { ...d.file, thumb: d.still.thumb },
      ...(d.still.size !== undefined ? { size: d.still.size } : {}),
    },
  };
}

/** The image type of downloaded bytes by their signature (JPEG, PNG, WebP), else undefined. */
function imageMimeOf(b: Buffer): string | undefined {
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image/jpeg";
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return "image/png";
  if (b.length >= 12 && b.toString("latin1", 0, 4) === "RIFF" && b.toString("latin1", 8, 12) === "WEBP")
    return "image/webp";
  return undefined;
}

export interface ImageSourceOptions {
  readonly images: MediaImages;
  /** Absent (the dry sandbox): only what is cached. */
  readonly fetcher?: MediaFetcher;
  readonly clock: Clock;
  readonly logger: Logger;
}

/** Pictures from the cache, else downloaded (bounded) and kept. */
export class ImageSource {
  constructor(private readonly o: ImageSourceOptions) {}

  /** Keep a picture the description chain downloaded anyway (no second download). */
  keep(d: MediaDescriptor, bytes: Buffer): void {
    const mime = pictureMime(d);
    if (mime && d.uid) this.o.images.put(d.uid, { mime, bytes }, this.o.clock.now());
  }

  /** The picture of a message, waiting at most `waitMs` (real time) for a download; undefined when there is none to send. */
  async picture(m: StoredMessage, waitMs: number): Promise<InlineImage | undefined> {
    const d = m.media;
    const what = d ? pictureOf(d) : undefined;
    if (!d?.uid || !what) return undefined;
    const cached = this.o.images.get(d.uid);
    if (cached) return { messageId: m.messageId, mime: cached.mime, bytes: cached.bytes };
    if (!this.o.fetcher) return undefined;
    const download = this.o.fetcher.download({
      chatId: m.chatId,
      messageId: m.messageId,
      media: what.media,
    });
    try {
      const bytes = await withTimeout(download, waitMs, "picture download", systemClock).catch(
        onTimeout(undefined),
      );
      if (!bytes) {
        this.o.logger.info(
          { component: "media", chatId: m.chatId, messageId: m.messageId },
          "picture not downloaded in time; its description stands",
        );
        return undefined;
      }
      const mime = what.mime ?? imageMimeOf(bytes);
      if (!mime) {
        this.o.logger.info(
          { component: "media", chatId: m.chatId, messageId: m.messageId },
          "the still is not a picture Gemini reads; its description stands",
        );
        return undefined;
      }
      if (!this.o.images.put(d.uid, { mime, bytes }, this.o.clock.now())) return undefined;
      return { messageId: m.messageId, mime, bytes };
    } catch (err) {
      this.o.logger.warn(
        {
          component: "media",
          chatId: m.chatId,
          messageId: m.messageId,
          err: errorMessage(err),
        },
        "picture download failed; its description stands",
      );
      return undefined;
    }
  }
}

/**
 * The pictures of a planning call: the addressed messages' (newest first), then those of the
 * messages they reply to, at most {@link MAX_INLINE_IMAGES}, each file once.
 */
export async function inlineImages(
  targets: readonly StoredMessage[],
  repliedTo: (m: StoredMessage) => StoredMessage | undefined,
  source: ImageSource,
  o: { readonly waitMs: number },
): Promise<InlineImage[]> {
  const newest = [...targets].reverse();
  const candidates = [...newest, ...newest.map(repliedTo)].filter(
    (m): m is StoredMessage =>
      m !== undefined && !m.deleted && m.media !== undefined && pictureOf(m.media) !== undefined,
  );
  const seen = new Set<string>();
  const chosen = candidates.filter((m) => {
    const uid = m.media!.uid!;
    if (seen.has(uid)) return false;
    seen.add(uid);
    return true;
  });
  const out: InlineImage[] = [];
  for (const m of chosen) {
    if (out.length === MAX_INLINE_IMAGES) break;
    const img = await source.picture(m, o.waitMs);
    if (img) out.push(img);
  }
  return out;
}
