/**
 * The Telegram side of the description chain: download a file with GramJS (`downloadFile`, i.e.
 * `upload.getFile` in chunks) from the location stored with the message, and when Telegram says
 * the file reference expired, fetch the message again (`channels.getMessages` /
 * `messages.getMessages`) and retry once with its fresh reference. Sticker-set short names come
 * from `messages.getStickerSet` by the set's id, once per set.
 *
 * The download asks the file's own data centre (its stored `dc_id`) at once: GramJS borrows a
 * connection there (signed in once per DC: the session keeps that DC's key), instead of asking the
 * main connection first and being told FILE_MIGRATE_X. A file on the main DC uses the main
 * connection. Chunks are pulled one by one (GramJS's iterDownload) so a download past its bound is
 * cancelled — no further chunk is asked for — rather than left running in the background.
 *
 * A DC other than the home one answering AUTH_KEY_UNREGISTERED does not know the key GramJS holds
 * for it (a sign-in there failed half-way, or Telegram dropped the key): that DC's key and borrowed
 * connection are dropped and the download is tried once more, with a new key signed in anew
 * (connection/exported-senders.ts). The home DC's AUTH_KEY_UNREGISTERED is the session's end, not
 * handled here.
 */
import { Api, errors, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { Logger } from "pino";
import type { MediaFile } from "../../base/media-descriptor";
import type { MediaFetcher, MediaRef } from "../../media/describer";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";
import { forgetExportedSender } from "../connection/exported-senders";
import type { ChatInfo } from "../../store/chats";
import type { TelegramClient } from "../inbound/listen";
import { parseMedia } from "../inbound/media-parse";

/** Bound on one download or lookup (real time: it bounds network I/O). */
const MEDIA_REQUEST_TIMEOUT_MS = 30_000;

export interface TelegramMediaFetcherOptions {
  readonly client: TelegramClient;
  readonly lookupChat: (chatId: string) => ChatInfo | undefined;
  readonly logger: Logger;
  readonly timeoutMs?: number;
}

function isExpired(e: unknown): boolean {
  return (
    e instanceof errors.RPCError &&
    (e.errorMessage === "FILE_REFERENCE_EXPIRED" || e.errorMessage.startsWith("FILE_REFERENCE_"))
  );
}

/** Telegram's "this key is not signed in" (on another DC: that DC's key, not the session). */
function isUnregistered(e: unknown): boolean {
  return e instanceof errors.RPCError && e.errorMessage === "AUTH_KEY_UNREGISTERED";
}

export class TelegramMediaFetcher implements MediaFetcher {
  private readonly setNames = new Map<string, Promise<string | undefined>>();

  constructor(private readonly o: TelegramMediaFetcherOptions) {}

  async download(ref: MediaRef): Promise<Buffer> {
    const file = ref.media.file;
    if (!file) throw new Error("no file to download");
    try {
      return await this.get(file, ref.media.size);
    } catch (e) {
      if (!isExpired(e)) throw e;
      this.o.logger.debug(
        { component: "media", chatId: ref.chatId, messageId: ref.messageId },
        "file reference expired; fetching the message again",
      );
      const fresh = await this.refetch(ref);
      if (!fresh)
        throw new Error(`message ${ref.messageId} in ${ref.chatId} is gone or has no file`, { cause: e });
      // A document's still is asked for again by its size type, with the fresh reference.
      const again =
        file.type === "document" && file.thumb !== undefined ? { ...fresh, thumb: file.thumb } : fresh;
      return this.get(again, ref.media.size);
    }
  }

  stickerSetName(setId: string, accessHash: string): Promise<string | undefined> {
    let p = this.setNames.get(setId);
    if (!p) {
      p = this.bounded(
        this.o.client.invoke(
          new Api.messages.GetStickerSet({
            stickerset: new Api.InputStickerSetID({
              id: returnBigInt(setId),
              accessHash: returnBigInt(accessHash),
            }),
            hash: 0,
          }),
        ),
        "messages.GetStickerSet",
      ).then((res) => (res instanceof Api.messages.StickerSet ? res.set.shortName : undefined));
      this.setNames.set(setId, p);
      p.catch(() => this.setNames.delete(setId));
    }
    return p;
  }

  private async get(file: MediaFile, size: number | undefined): Promise<Buffer> {
    const ref = Buffer.from(file.fileReference, "base64");
    if (file.type === "photo" && !file.thumb) throw new Error(`photo ${file.id} has no downloadable size`);
    const location =
      file.type === "photo"
        ? new Api.InputPhotoFileLocation({
            id: returnBigInt(file.id),
            accessHash: returnBigInt(file.accessHash),
            fileReference: ref,
            thumbSize: file.thumb!,
          })
        : new Api.InputDocumentFileLocation({
            id: returnBigInt(file.id),
            accessHash: returnBigInt(file.accessHash),
            fileReference: ref,
            thumbSize: file.thumb ?? "", // "": the file itself; else one of its thumbnails
          });
    const attempt = async () => {
      const cancel = { stopped: false };
      try {
        return await this.bounded(this.chunks(location, file.dcId, size, cancel), "file download");
      } finally {
        cancel.stopped = true; // past the bound (or failed): ask for no further chunk
      }
    };
    try {
      return await attempt();
    } catch (e) {
      const dcId = file.dcId;
      if (dcId === undefined || dcId === this.o.client.session.dcId || !isUnregistered(e)) throw e;
      this.o.logger.warn(
        { component: "media", dcId, rpcError: "AUTH_KEY_UNREGISTERED" },
        `DC ${dcId} does not know this account's key there: dropping that key and its connection, signing in there again`,
      );
      await forgetExportedSender(this.o.client, dcId);
      return attempt();
    }
  }

  /** The file, chunk by chunk, from its own DC; stops asking once `cancel.stopped`. */
  private async chunks(
    location: Api.TypeInputFileLocation,
    dcId: number | undefined,
    size: number | undefined,
    cancel: { stopped: boolean },
  ): Promise<Buffer> {
    const own = this.o.client.session.dcId;
    // GramJS's own part size for a file of this size (64 KB when the size is unknown).
    const partSize = (size !== undefined ? utils.getAppropriatedPartSize(returnBigInt(size)) : 64) * 1024;
    const parts: Buffer[] = [];
    const iter = this.o.client.iterDownload({
      file: location,
      requestSize: partSize,
      ...(dcId !== undefined && dcId !== own ? { dcId } : {}),
    });
    for await (const chunk of iter) {
      if (cancel.stopped) throw new Error("download cancelled");
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  }

  /** The message again, as Telegram shows it now: its file with a fresh reference. */
  private async refetch(ref: MediaRef): Promise<MediaFile | undefined> {
    const msg = await this.message(ref.chatId, ref.messageId);
    return msg ? parseMedia(msg)?.file : undefined;
  }

  /** One message as Telegram shows it now (`channels.getMessages` / `messages.getMessages`), bounded. */
  async message(chatId: string, messageId: number): Promise<Api.Message | undefined> {
    const id = [new Api.InputMessageID({ id: messageId })];
    let res: Api.messages.TypeMessages;
    if (chatId.startsWith("-100")) {
      const chat = this.o.lookupChat(chatId);
      if (chat?.accessHash === undefined) throw new Error(`no access hash for ${chatId}`);
      const channel = new Api.InputChannel({
        channelId: returnBigInt(chatId.slice(4)),
        accessHash: returnBigInt(chat.accessHash),
      });
      res = await this.bounded(
        this.o.client.invoke(new Api.channels.GetMessages({ channel, id })),
        "channels.GetMessages",
      );
    } else {
      res = await this.bounded(
        this.o.client.invoke(new Api.messages.GetMessages({ id })),
        "messages.GetMessages",
      );
    }
    if (res instanceof Api.messages.MessagesNotModified) return undefined;
    return res.messages.find((m): m is Api.Message => m instanceof Api.Message && m.id === messageId);
  }

  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    // Real time, not the runtime's clock: this bounds network I/O.
    return withTimeout(p, this.o.timeoutMs ?? MEDIA_REQUEST_TIMEOUT_MS, what, systemClock);
  }
}
