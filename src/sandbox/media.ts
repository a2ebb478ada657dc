/**
 * Media in sandbox input: `alice [photo samples/photo.jpg]: caption`, `bob [sticker Cats 😺]`,
 * `dm carol [voice samples/voice.ogg]`. The file is read and posted through the emulator, which
 * serves it to the persona's `upload.getFile` like Telegram would.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import type { EmuMediaInput, TelegramEmulator } from "../../emulator";

/** The media forms, as `--help` and `/help` list them. */
export const MEDIA_FORMS =
  "photo <file.jpg> · sticker <set> <emoji> · voice <file.ogg> · video <file.mp4> · gif <file.mp4> · file <any file>";

const MIME: Record<string, string> = {
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".png": "image/png",
  ".webp": "image/webp",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/ogg",
  ".mp3": "audio/mpeg",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".pdf": "application/pdf",
  ".txt": "text/plain",
};

/** Seconds of an Ogg Opus file (its last page's granule position at 48 kHz), or undefined. */
export function oggDuration(bytes: Buffer): number | undefined {
  const last = bytes.lastIndexOf("OggS");
  if (last < 0 || last + 14 > bytes.length) return undefined;
  const granule = Number(bytes.readBigInt64LE(last + 6));
  return granule > 0 ? Math.max(1, Math.round(granule / 48_000)) : undefined;
}

function read(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new Error(`cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? String(e)})`, { cause: e });
  }
}

/**
 * What `[<spec>]` posts. A sticker set the emulated Telegram does not know yet is created with
 * that sticker (as if someone published it). Throws an Error whose message says what was wrong.
 */
export function mediaFromSpec(spec: string, emu: TelegramEmulator): EmuMediaInput {
  const [kind, ...rest] = spec.trim().split(/\s+/);
  const arg = rest.join(" ");
  switch (kind?.toLowerCase()) {
    case "photo":
      if (!arg) throw new Error(`"[photo]" needs a file: [photo <file.jpg>]`);
      return { kind: "photo", bytes: read(arg) };
    case "sticker": {
      const [set, emoji] = rest;
      if (!set || !emoji)
        throw new Error(`"[sticker ${arg}]" needs a set and an emoji: [sticker <set> <emoji>]`);
      emu.ensureSticker(set, emoji);
      return { kind: "sticker", set, emoji };
    }
    case "voice": {
      if (!arg) throw new Error(`"[voice]" needs a file: [voice <file.ogg>]`);
      const bytes = read(arg);
      const duration = oggDuration(bytes);
      return { kind: "voice", bytes, mimeType: "audio/ogg", ...(duration !== undefined ? { duration } : {}) };
    }
    case "video":
    case "gif":
    case "file": {
      if (!arg) throw new Error(`"[${kind}]" needs a file: [${kind} <file>]`);
      const mimeType = MIME[extname(arg).toLowerCase()] ?? "application/octet-stream";
      const fileName = arg.split(/[\\/]/).pop()!;
      return {
        kind: kind === "file" ? "document" : kind === "gif" ? "gif" : "video",
        bytes: read(arg),
        mimeType,
        fileName,
      };
    }
    default:
      throw new Error(`unknown media "[${spec}]"; use one of: ${MEDIA_FORMS}`);
  }
}
