/**
 * What a media message carries, as parsed from the update with no API call, and how it reads in
 * the prompt. Platform-neutral: src/telegram/inbound/media-parse.ts builds it from GramJS objects.
 *
 * Stored with the message (`messages.media`, JSON; NULL for text messages). `text` of the stored
 * message stays the caption, or the plain placeholder (`[photo]`) when there is none, so every
 * reader that only knows `text` (reply quotes, history) still sees something sensible.
 */
import { cleanPart as clean, renderPreview, type LinkPreview } from "./link-preview";

/** The kinds told apart. `other` covers media kinds nobody describes (games, invoices, …). */
export type MediaKind =
  | "photo"
  | "sticker"
  | "gif"
  | "video"
  | "video_note"
  | "voice"
  | "audio"
  | "document"
  | "poll"
  | "location"
  | "contact"
  | "webpage"
  | "other";

/** Where the file lives on Telegram: enough to download it without the original message. */
export interface MediaFile {
  readonly type: "photo" | "document";
  /** Telegram's file id (a long, as a decimal string). */
  readonly id: string;
  readonly accessHash: string;
  /** Base64 of the file reference the message carried (it expires; a refetch renews it). */
  readonly fileReference: string;
  readonly dcId: number;
  /**
   * Photos: the size type to download (e.g. "x"). Documents: none (the file itself), or the size
   * type of one of its thumbnails to download that still instead (media/inline-images.ts).
   */
  readonly thumb?: string;
}

interface StickerInfo {
  /** The set as the message names it (id + access hash); its short name needs one request. */
  readonly setId?: string;
  readonly setAccessHash?: string;
  /** The emoji the sticker stands for (its `alt`). */
  readonly emoji: string;
  /** Lottie (`tgs`) or video (`webm`) sticker; absent for a static one. */
  readonly animated?: "tgs" | "video";
}

export interface MediaDescriptor {
  readonly kind: MediaKind;
  /**
   * Stable id of the file across messages, chats and accounts (Bot API `file_unique_id` for
   * documents): the key of curated descriptions and of the description cache.
   */
  readonly uid?: string;
  readonly file?: MediaFile;
  readonly mime?: string;
  /** Bytes (of the size that would be downloaded, for photos). */
  readonly size?: number;
  /** Documents: the file name. */
  readonly name?: string;
  /** Seconds (voice, video, video note, audio, GIF). */
  readonly duration?: number;
  /** Audio: "performer – title". */
  readonly title?: string;
  readonly sticker?: StickerInfo;
  /**
   * GIFs and animated or video stickers: the still picture Telegram keeps beside the file (one of
   * the document's thumbnails, a JPEG or WebP): its size type and bytes.
   */
  readonly still?: { readonly thumb: string; readonly size?: number };
  /** Album: messages sharing it are one item. */
  readonly groupedId?: string;
  readonly poll?: { readonly question: string; readonly options: readonly string[] };
  readonly location?: { readonly lat: number; readonly long: number; readonly venue?: string };
  readonly contact?: { readonly name: string };
  /** The message also has text (a caption), kept as the message's text. */
  readonly caption?: boolean;
  /** Kind name for `other` (e.g. "game"). */
  readonly other?: string;
  /** `webpage`: the link preview Telegram attached (base/link-preview.ts). */
  readonly webpage?: LinkPreview;
}

/** What the description chain found for a file. */
export interface MediaDescription {
  /** A description (photos, stickers, GIFs, videos) or a transcript (voice, video notes). */
  readonly text: string;
  /** The sticker set's short name, when known (curated entry or a resolved set). */
  readonly stickerSet?: string;
}

/** Kinds whose content the AI source can describe or transcribe. */
export const DESCRIBABLE: ReadonlySet<MediaKind> = new Set([
  "photo",
  "sticker",
  "gif",
  "video",
  "video_note",
  "voice",
]);
/** Kinds whose "description" is a transcript of speech. */
export const TRANSCRIBED: ReadonlySet<MediaKind> = new Set(["voice", "video_note"]);

/** `0:12`, `1:02:03`. */
function formatDuration(sec: number): string {
  const s = Math.max(0, Math.round(sec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** `512 B`, `12 KB`, `2.1 MB`, `1.3 GB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v >= 10 ? Math.round(v) : Math.round(v * 10) / 10} ${units[i]}`;
}

/**
 * The compact part a media message reads as: `[photo]`, `[photo: a cat on a sofa]`,
 * `[sticker cats::😺: a cat waving]`, `[voice 0:12: "see you at six"]`,
 * `[document report.pdf, 2.1 MB]`. Without a description, the plain placeholder.
 */
export function renderMedia(d: MediaDescriptor, desc?: MediaDescription): string {
  const text = desc ? clean(desc.text) : "";
  const withDesc = (head: string) => (text ? `[${head}: ${text}]` : `[${head}]`);
  const quoted = (head: string) => (text ? `[${head}: "${text}"]` : `[${head}]`);
  const dur = d.duration !== undefined ? ` ${formatDuration(d.duration)}` : "";
  switch (d.kind) {
    case "photo":
      return withDesc("photo");
    case "sticker": {
      const emoji = d.sticker?.emoji ?? "";
      const set = desc?.stickerSet ? `${clean(desc.stickerSet)}::` : "";
      return withDesc(`sticker ${set}${emoji}`.trimEnd());
    }
    case "gif":
      return withDesc("gif");
    case "video":
      return withDesc(`video${dur}`);
    case "video_note":
      return quoted(`video note${dur}`);
    case "voice":
      return quoted(`voice${dur}`);
    case "audio":
      return `[audio${d.title ? ` ${clean(d.title)}` : ""}${dur}]`;
    case "document": {
      const parts = [
        d.name ? clean(d.name) : (d.mime ?? "file"),
        ...(d.size !== undefined ? [formatSize(d.size)] : []),
      ];
      return `[document ${parts.join(", ")}]`;
    }
    case "poll":
      return d.poll
        ? `[poll: ${clean(d.poll.question)} — ${d.poll.options.map(clean).join(" / ")}]`
        : "[poll]";
    case "location":
      return d.location
        ? `[location${d.location.venue ? ` ${clean(d.location.venue)}` : ""} ${d.location.lat.toFixed(5)}, ${d.location.long.toFixed(5)}]`
        : "[location]";
    case "contact":
      return d.contact ? `[contact ${clean(d.contact.name)}]` : "[contact]";
    case "webpage":
      return renderPreview(d.webpage ?? {});
    case "other":
      return `[${d.other ?? "media"}]`;
  }
}

/**
 * How a stored media message reads in the prompt: its part, then its caption on the next line.
 * `text` is the stored text (the caption, or the plain placeholder when there is none).
 */
export function renderMessageText(text: string, d: MediaDescriptor, desc?: MediaDescription): string {
  const part = renderMedia(d, desc);
  return d.caption && text !== "" ? `${part}\n${text}` : part;
}
