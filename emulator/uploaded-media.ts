/**
 * A document an account uploaded and now sends (messages.sendMedia with
 * InputMediaUploadedDocument): its parts assembled (uploads.ts), stored as a file, and the
 * message's media made from its attributes. A voice message is a document with
 * DocumentAttributeAudio `voice` — Telegram's apps show one as a voice note only when it is Ogg
 * Opus (`audio/ogg`), so a "voice" of another type is kept as a plain audio file here — with the
 * duration and 5-bit waveform the sender attached. A voice message to a user whose privacy
 * forbids them answers VOICE_MESSAGES_FORBIDDEN (voice-privacy.ts).
 */
import { Api } from "telegram";
import { fromLong } from "./long";
import { RpcFault } from "./rpc-fault";
import type { MediaRecord } from "./stored-message";
import { uploadsOf } from "./uploads";
import type { World } from "./world";

/** The media record of an uploaded document (the upload is used up). */
export function uploadedDocument(
  world: World,
  accountId: number,
  media: Api.InputMediaUploadedDocument,
): MediaRecord {
  const f = media.file;
  if (!(f instanceof Api.InputFile) && !(f instanceof Api.InputFileBig))
    throw new RpcFault("FILE_PARTS_INVALID");
  if (!media.mimeType) throw new RpcFault("MEDIA_INVALID");
  const bytes = uploadsOf(world, accountId).take(String(fromLong(f.id)), f.parts);
  const audio = media.attributes.find(
    (a): a is Api.DocumentAttributeAudio => a instanceof Api.DocumentAttributeAudio,
  );
  const name = media.attributes.find(
    (a): a is Api.DocumentAttributeFilename => a instanceof Api.DocumentAttributeFilename,
  );
  if (!audio)
    throw new RpcFault("EMULATOR_UNIMPLEMENTED", 400, "an uploaded document without DocumentAttributeAudio");
  const voice = audio.voice === true && media.mimeType === "audio/ogg";
  return {
    kind: voice ? "voice" : "audio",
    file: world.files.add(bytes, media.mimeType),
    duration: audio.duration,
    ...(name ? { fileName: name.fileName } : {}),
    ...(voice && audio.waveform ? { waveform: Buffer.from(audio.waveform) } : {}),
  };
}

const forbidding = new WeakMap<World, Set<number>>();

/** `userId`'s privacy settings forbid voice messages to them (a Premium setting). */
export function forbidVoiceMessages(world: World, userId: number): void {
  let s = forbidding.get(world);
  if (!s) {
    s = new Set();
    forbidding.set(world, s);
  }
  s.add(userId);
}

/** Whether `userId` forbids voice messages. */
export function forbidsVoiceMessages(world: World, userId: number): boolean {
  return forbidding.get(world)?.has(userId) ?? false;
}
