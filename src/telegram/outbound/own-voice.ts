/**
 * Her voice notes played back on the console, without storing them: the note's message is asked
 * of Telegram again (`messages.getMessages` / `channels.getMessages`), and only when it is in the
 * chat asked about, sent from the account (`out`) and a voice or audio document no larger than
 * `maxBytes` is its file downloaded (`upload.getFile`, through the description chain's fetcher)
 * into memory and handed back. The whole is bounded by `timeoutMs`; nothing is written anywhere.
 */
import { utils } from "telegram";
import type { Logger } from "pino";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";
import type { ChatInfo } from "../../store/chats";
import type { TelegramClient } from "../inbound/listen";
import { parseMedia } from "../inbound/media-parse";
import { TelegramMediaFetcher } from "./media-download";

/** Largest note served (bytes): her notes are at most a minute or two of Opus, well under this. */
const MAX_VOICE_BYTES = 5 * 1024 * 1024;
/** Bound on the look-up and download together (real time: it bounds network I/O). */
const VOICE_TIMEOUT_MS = 20_000;

export interface OwnVoiceOptions {
  readonly client: TelegramClient;
  readonly lookupChat: (chatId: string) => ChatInfo | undefined;
  readonly logger: Logger;
  readonly maxBytes?: number;
  readonly timeoutMs?: number;
}

export class OwnVoice {
  private readonly fetcher: TelegramMediaFetcher;

  constructor(private readonly o: OwnVoiceOptions) {
    this.fetcher = new TelegramMediaFetcher({ client: o.client, lookupChat: o.lookupChat, logger: o.logger });
  }

  /** The note's bytes, or undefined when that message is not a voice or audio note of hers in that chat. */
  fetch(chatId: string, messageId: number): Promise<Buffer | undefined> {
    return withTimeout(
      this.get(chatId, messageId),
      this.o.timeoutMs ?? VOICE_TIMEOUT_MS,
      "voice note",
      systemClock,
    );
  }

  private async get(chatId: string, messageId: number): Promise<Buffer | undefined> {
    const max = this.o.maxBytes ?? MAX_VOICE_BYTES;
    const msg = await this.fetcher.message(chatId, messageId);
    // Private chats' and basic groups' ids are the account's own: check the message is in this chat.
    if (!msg || !msg.out || utils.getPeerId(msg.peerId) !== chatId) return undefined;
    const media = parseMedia(msg);
    if (!media?.file || (media.kind !== "voice" && media.kind !== "audio")) return undefined;
    if (media.size === undefined || media.size > max) return undefined;
    const bytes = await this.fetcher.download({ chatId, messageId, media });
    return bytes.length <= max ? bytes : undefined;
  }
}
