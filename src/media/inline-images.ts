/**
 * The picture a person is asked about: when an addressed message, or the message it replies to,
 * is a photo or a static sticker, the planning request carries the picture itself (inline data),
 * not only its description — at most {@link MAX_INLINE_IMAGES}, each at most the image cache's size
 * cap. A picture is downloaded once (the description chain keeps what it downloads, see
 * describer.ts) and kept in the image cache (store/media-images.ts); a failed or slow download
 * leaves the description to speak for it. The history keeps using text descriptions.
 */
import type { Logger } from "pino";
import type { InlineImage } from "../context/history-item";
import { systemClock } from "../runtime/clock";
import { errorMessage } from "../runtime/error-message";
import { onTimeout, withTimeout } from "../runtime/timeout";
import type { MediaImages } from "../store/media-images";
import type { StoredMessage } from "../store/messages";
import type { Clock } from "../types";
import type { MediaFetcher } from "./describer";
import type { MediaDescriptor } from "./descriptor";

/** Pictures per planning request at most. */
const MAX_INLINE_IMAGES = 2;

/** The MIME type of the picture a medium shows at a glance (photos, static stickers), else undefined. */
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
    const mime = d ? pictureMime(d) : undefined;
    if (!d || !mime || !d.uid) return undefined;
    const cached = this.o.images.get(d.uid);
    if (cached) return { messageId: m.messageId, mime: cached.mime, bytes: cached.bytes };
    if (!this.o.fetcher) return undefined;
    const download = this.o.fetcher.download({ chatId: m.chatId, messageId: m.messageId, media: d });
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
      m !== undefined && !m.deleted && m.media !== undefined && pictureMime(m.media) !== undefined,
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
