/**
 * A voice note to Telegram: the `.ogg` uploaded in parts by GramJS's own uploader
 * (`client.uploadFile`: upload.saveFilePart on a connection to the home DC), then sent with
 * messages.sendMedia — built by hand, so the task's random_id is the one on the wire (a retry
 * never sends twice) — as InputMediaUploadedDocument `audio/ogg` with DocumentAttributeAudio
 * `voice`, its duration and waveform: how Telegram's apps send a voice message
 * (docs/telegram-facts.md). The bytes come from memory: nothing is written to disk.
 */
import { Api, type TelegramClient } from "telegram";
import { CustomFile } from "telegram/client/uploads.js";
import { returnBigInt } from "telegram/Helpers.js";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";

/** An upload of a voice note (a few dozen KB) still running after this long is given up (a transient failure). */
const UPLOAD_TIMEOUT_MS = 60_000;

export interface VoiceSend {
  readonly ogg: Buffer;
  readonly seconds: number;
  readonly waveform: Buffer;
}

/**
 * The note's parts uploaded; returns the InputFile that names them. `timeoutMs`: the limit
 * (default UPLOAD_TIMEOUT_MS). Its failure or timeout is the caller's to map: nothing was sent yet.
 */
export async function uploadVoice(
  client: TelegramClient,
  v: VoiceSend,
  timeoutMs = UPLOAD_TIMEOUT_MS,
): Promise<Api.TypeInputFile> {
  const file = new CustomFile("voice.ogg", v.ogg.length, "", v.ogg);
  return withTimeout(client.uploadFile({ file, workers: 1 }), timeoutMs, "voice upload", systemClock);
}

/** The sendMedia request of an uploaded voice note. */
export function voiceRequest(o: {
  readonly peer: Api.TypeInputPeer | ReturnType<typeof returnBigInt>;
  readonly file: Api.TypeInputFile;
  readonly note: VoiceSend;
  readonly randomId: string;
  readonly replyTo?: Api.InputReplyToMessage;
}): Api.messages.SendMedia {
  return new Api.messages.SendMedia({
    peer: o.peer,
    media: new Api.InputMediaUploadedDocument({
      file: o.file,
      mimeType: "audio/ogg",
      attributes: [
        new Api.DocumentAttributeAudio({ voice: true, duration: o.note.seconds, waveform: o.note.waveform }),
      ],
    }),
    message: "",
    randomId: returnBigInt(o.randomId),
    ...(o.replyTo ? { replyTo: o.replyTo } : {}),
  });
}

/**
 * The mark (duration, waveform) of a message that is a voice note, or undefined. A note sent
 * without a waveform reads as an empty one (never equal to one of hers: hers always carry one).
 */
export function voiceMarkOf(m: Api.Message): { seconds: number; waveform: string } | undefined {
  const doc = m.media instanceof Api.MessageMediaDocument ? m.media.document : undefined;
  if (!(doc instanceof Api.Document)) return undefined;
  for (const a of doc.attributes)
    if (a instanceof Api.DocumentAttributeAudio && a.voice)
      return { seconds: a.duration, waveform: a.waveform ? Buffer.from(a.waveform).toString("base64") : "" };
  return undefined;
}

/** How much earlier than its mark a note may be dated and still be the one it marks. */
const MARK_GRACE_SEC = 60;

/** Whether a message is exactly one of these notes of hers: the same duration and the same waveform bytes. */
export function isOneOf(
  m: Api.Message,
  marks: readonly { seconds: number; waveform: string; at?: number }[],
): boolean {
  const mark = voiceMarkOf(m);
  return (
    mark !== undefined &&
    mark.waveform !== "" &&
    marks.some(
      (k) =>
        k.seconds === mark.seconds &&
        k.waveform === mark.waveform &&
        // Sent after it was made (a minute's grace for the clocks): not an older note alike.
        (k.at === undefined || m.date >= k.at - MARK_GRACE_SEC),
    )
  );
}
