/**
 * GramJS media → MediaDescriptor, from what the message carries (no API call). Only runs for
 * messages that have media: a text message pays nothing here.
 */
import { Api } from "telegram";
import type { MediaDescriptor, MediaFile, MediaKind } from "../../base/media-descriptor";
import { fileUniqueId } from "../../base/file-unique-id";
import { boundedPreview, type LinkPreview } from "../../base/link-preview";

/** Photo sizes we download, best first: ~800 px is plenty for a description and cheap to send. */
const PHOTO_SIZE_PREFERENCE = ["x", "m", "y", "w", "s"];
/** A document's thumbnails we send as its still, best first ("m": up to 320 px). */
const STILL_PREFERENCE = ["m", "x", "s"];

type PhotoSizeLike = Api.PhotoSize | Api.PhotoSizeProgressive;

function sizeBytes(s: PhotoSizeLike): number {
  return s instanceof Api.PhotoSizeProgressive ? Math.max(0, ...s.sizes) : s.size;
}

/**
 * A photo with a downloadable size (PhotoSize / PhotoSizeProgressive) carries its file; one with
 * only inline sizes (stripped, cached, path) or none has nothing to download, so it carries no
 * file and the describer rules it out without a request.
 */
function photoDescriptor(photo: Api.Photo): MediaDescriptor {
  const sizes = photo.sizes.filter(
    (s): s is PhotoSizeLike => s instanceof Api.PhotoSize || s instanceof Api.PhotoSizeProgressive,
  );
  const pick =
    PHOTO_SIZE_PREFERENCE.map((t) => sizes.find((s) => s.type === t)).find((s) => s !== undefined) ??
    sizes.at(-1);
  const id = photo.id.toString();
  if (!pick) return { kind: "photo", uid: fileUniqueId("photo", id), mime: "image/jpeg" };
  const file: MediaFile = {
    type: "photo",
    id,
    accessHash: photo.accessHash.toString(),
    fileReference: Buffer.from(photo.fileReference).toString("base64"),
    dcId: photo.dcId,
    thumb: pick.type,
  };
  return { kind: "photo", uid: fileUniqueId("photo", id), file, mime: "image/jpeg", size: sizeBytes(pick) };
}

/** A GIF's or an animated sticker's still: a downloadable thumbnail (not a stripped or path one). */
function stillOf(doc: Api.Document): MediaDescriptor["still"] {
  const sizes = (doc.thumbs ?? []).filter(
    (s): s is PhotoSizeLike => s instanceof Api.PhotoSize || s instanceof Api.PhotoSizeProgressive,
  );
  const pick = STILL_PREFERENCE.map((t) => sizes.find((s) => s.type === t)).find((s) => s !== undefined);
  return pick ? { thumb: pick.type, size: sizeBytes(pick) } : undefined;
}

function documentDescriptor(doc: Api.Document, media: Api.MessageMediaDocument): MediaDescriptor {
  let kind: MediaKind = "document";
  let duration: number | undefined;
  let name: string | undefined;
  let title: string | undefined;
  let sticker: MediaDescriptor["sticker"];
  let animatedGif = false;
  for (const a of doc.attributes) {
    if (a instanceof Api.DocumentAttributeFilename) name = a.fileName;
    else if (a instanceof Api.DocumentAttributeAnimated) animatedGif = true;
    else if (a instanceof Api.DocumentAttributeSticker) {
      const set = a.stickerset instanceof Api.InputStickerSetID ? a.stickerset : undefined;
      sticker = {
        emoji: a.alt,
        ...(set ? { setId: set.id.toString(), setAccessHash: set.accessHash.toString() } : {}),
        ...(doc.mimeType === "application/x-tgsticker"
          ? { animated: "tgs" as const }
          : doc.mimeType === "video/webm"
            ? { animated: "video" as const }
            : {}),
      };
    } else if (a instanceof Api.DocumentAttributeAudio) {
      duration = a.duration;
      if (a.voice) kind = "voice";
      else {
        kind = "audio";
        const t = [a.performer, a.title].filter(Boolean).join(" – ");
        if (t) title = t;
      }
    } else if (a instanceof Api.DocumentAttributeVideo) {
      duration = a.duration;
      kind = a.roundMessage ? "video_note" : "video";
    }
  }
  if (sticker) kind = "sticker";
  else if (animatedGif && kind === "video") kind = "gif";
  else if (animatedGif) kind = "gif";
  if (media.voice && kind !== "voice") kind = "voice";
  if (media.round && kind === "video") kind = "video_note";
  const file: MediaFile = {
    type: "document",
    id: doc.id.toString(),
    accessHash: doc.accessHash.toString(),
    fileReference: Buffer.from(doc.fileReference).toString("base64"),
    dcId: doc.dcId,
  };
  const still = kind === "gif" || sticker?.animated !== undefined ? stillOf(doc) : undefined;
  return {
    kind,
    uid: fileUniqueId("document", file.id),
    file,
    mime: doc.mimeType,
    size: Number(doc.size.toString()),
    ...(name !== undefined && kind === "document" ? { name } : {}),
    ...(duration !== undefined ? { duration } : {}),
    ...(title !== undefined ? { title } : {}),
    ...(sticker ? { sticker } : {}),
    ...(still ? { still } : {}),
  };
}

/**
 * The preview a `messageMediaWebPage` carries: a complete `webPage` (site, title, description,
 * kind), a `webPagePending` (its id, to be completed by updateWebPage or an edit) or a
 * `webPageEmpty` (no preview). Only strings are read: the preview's photo or document is never
 * downloaded. `webPageNotModified` (only answers to messages.getWebPage) reads as empty.
 */
export function previewOf(w: Api.TypeWebPage): LinkPreview {
  // From the wire an absent optional field (a page without an author, a pending page's url) is null.
  if (w instanceof Api.WebPage)
    return boundedPreview({
      id: w.id.toString(),
      url: w.url,
      site: w.siteName ?? undefined,
      title: w.title ?? undefined,
      description: w.description ?? undefined,
      type: w.type ?? undefined,
      author: w.author ?? undefined,
    });
  if (w instanceof Api.WebPagePending)
    return boundedPreview({ id: w.id.toString(), url: w.url ?? undefined, pending: true });
  if (w instanceof Api.WebPageEmpty)
    return boundedPreview({ id: w.id.toString(), url: w.url ?? undefined, empty: true });
  return { empty: true };
}

function textOf(t: Api.TypeTextWithEntities | string): string {
  return typeof t === "string" ? t : t.text;
}

/** The descriptor of a message's media, or undefined for a message without (or with empty) media. */
export function parseMedia(m: Api.Message): MediaDescriptor | undefined {
  const media = m.media;
  if (!media || media instanceof Api.MessageMediaEmpty) return undefined;
  let d: MediaDescriptor;
  if (media instanceof Api.MessageMediaWebPage) {
    d = { kind: "webpage", webpage: previewOf(media.webpage) };
  } else if (media instanceof Api.MessageMediaPhoto) {
    if (!(media.photo instanceof Api.Photo)) return undefined;
    d = photoDescriptor(media.photo);
  } else if (media instanceof Api.MessageMediaDocument) {
    if (!(media.document instanceof Api.Document)) return undefined;
    d = documentDescriptor(media.document, media);
  } else if (media instanceof Api.MessageMediaPoll) {
    d = {
      kind: "poll",
      poll: { question: textOf(media.poll.question), options: media.poll.answers.map((a) => textOf(a.text)) },
    };
  } else if (
    media instanceof Api.MessageMediaGeo ||
    media instanceof Api.MessageMediaGeoLive ||
    media instanceof Api.MessageMediaVenue
  ) {
    const geo = media.geo;
    if (!(geo instanceof Api.GeoPoint)) return { kind: "location" };
    d = {
      kind: "location",
      location: {
        lat: geo.lat,
        long: geo.long,
        ...(media instanceof Api.MessageMediaVenue ? { venue: media.title } : {}),
      },
    };
  } else if (media instanceof Api.MessageMediaContact) {
    // A contact without a name is shown as "[contact]": its phone number never enters a prompt.
    const name = [media.firstName, media.lastName].filter(Boolean).join(" ").trim();
    d = name ? { kind: "contact", contact: { name } } : { kind: "contact" };
  } else {
    d = { kind: "other", other: media.className.replace(/^MessageMedia/, "").toLowerCase() };
  }
  return {
    ...d,
    ...(m.groupedId ? { groupedId: m.groupedId.toString() } : {}),
    ...(m.message ? { caption: true } : {}),
  };
}
