/**
 * TL objects of stored files, as Telegram shows them inside messages: `Photo` with one size,
 * `Document` with the attributes of its kind (voice, round video, GIF, audio, file name, sticker)
 * and, for GIFs, videos and animated or video stickers, the still thumbnail in `thumbs`.
 * The file reference is always the file's current one.
 */
import { Api } from "telegram";
import type { FileRecord } from "./file-store";
import { toLong } from "./long";
import type { MediaRecord, StickerDoc } from "./stored-message";

/** The size type every emulated photo has (one size: the stored bytes). */
export const PHOTO_SIZE_TYPE = "x";

function photo(m: MediaRecord): Api.Photo {
  const f = m.file;
  return new Api.Photo({
    id: toLong(f.id),
    accessHash: toLong(f.accessHash),
    fileReference: f.fileReference,
    date: 0,
    sizes: [
      new Api.PhotoSize({
        type: PHOTO_SIZE_TYPE,
        w: m.width ?? 800,
        h: m.height ?? 600,
        size: f.bytes.length,
      }),
    ],
    dcId: f.dcId,
  });
}

function attributes(m: MediaRecord): Api.TypeDocumentAttribute[] {
  const name = m.fileName !== undefined ? [new Api.DocumentAttributeFilename({ fileName: m.fileName })] : [];
  const duration = m.duration ?? 0;
  switch (m.kind) {
    case "voice":
      return [
        new Api.DocumentAttributeAudio({
          voice: true,
          duration,
          ...(m.waveform ? { waveform: m.waveform } : {}),
        }),
      ];
    case "audio":
      return [
        new Api.DocumentAttributeAudio({
          duration,
          ...(m.title !== undefined ? { title: m.title } : {}),
          ...(m.performer !== undefined ? { performer: m.performer } : {}),
        }),
        ...name,
      ];
    case "video_note":
      return [new Api.DocumentAttributeVideo({ roundMessage: true, duration, w: 384, h: 384 })];
    case "video":
      return [
        new Api.DocumentAttributeVideo({
          supportsStreaming: true,
          duration,
          w: m.width ?? 1280,
          h: m.height ?? 720,
        }),
        ...name,
      ];
    case "gif":
      return [
        new Api.DocumentAttributeAnimated(),
        new Api.DocumentAttributeVideo({ nosound: true, duration, w: 320, h: 240 }),
        ...name,
      ];
    default:
      return name;
  }
}

/** The document's `thumbs`: its still, when it has one. */
function thumbs(f: FileRecord): { thumbs?: Api.TypePhotoSize[] } {
  const t = f.thumb;
  return t ? { thumbs: [new Api.PhotoSize({ type: t.type, w: t.w, h: t.h, size: t.bytes.length })] } : {};
}

function document(m: MediaRecord): Api.Document {
  const f = m.file;
  return new Api.Document({
    id: toLong(f.id),
    accessHash: toLong(f.accessHash),
    fileReference: f.fileReference,
    date: 0,
    mimeType: f.mimeType,
    size: toLong(f.bytes.length),
    ...thumbs(f),
    dcId: f.dcId,
    attributes: attributes(m),
  });
}

/** `MessageMedia*` of a posted photo or document. */
export function messageMedia(m: MediaRecord): Api.TypeMessageMedia {
  if (m.kind === "photo") return new Api.MessageMediaPhoto({ photo: photo(m) });
  return new Api.MessageMediaDocument({
    document: document(m),
    ...(m.kind === "voice" ? { voice: true } : {}),
    ...(m.kind === "video_note" ? { round: true } : {}),
    ...(m.kind === "video" || m.kind === "gif" ? { video: true } : {}),
  });
}

/** A sticker's document (its set by id + access hash, as Telegram names it). */
export function stickerDocument(doc: StickerDoc): Api.Document {
  const f = doc.file;
  const animated = f.mimeType === "application/x-tgsticker" || f.mimeType === "video/webm";
  return new Api.Document({
    id: toLong(doc.id),
    accessHash: toLong(doc.accessHash),
    fileReference: f.fileReference,
    date: 0,
    mimeType: f.mimeType,
    size: toLong(f.bytes.length),
    ...thumbs(f),
    dcId: f.dcId,
    attributes: [
      new Api.DocumentAttributeImageSize({ w: 512, h: 512 }),
      new Api.DocumentAttributeSticker({
        alt: doc.emoji,
        stickerset: new Api.InputStickerSetID({
          id: toLong(doc.set.id),
          accessHash: toLong(doc.set.accessHash),
        }),
      }),
      new Api.DocumentAttributeFilename({
        fileName:
          f.mimeType === "application/x-tgsticker"
            ? "AnimatedSticker.tgs"
            : animated
              ? "sticker.webm"
              : "sticker.webp",
      }),
    ],
  });
}
