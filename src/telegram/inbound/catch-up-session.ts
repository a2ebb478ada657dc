import type { Logger } from "pino";
import { Api, errors, utils, type TelegramClient } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { EntityStore } from "../../store/entities";
import type { UpdateStateStore } from "../../store/update-state";
import { captureEntities, inputChannelOf } from "../entities";
import type { MessageFeed } from "./message-feed";
import type { GramMessage } from "./parse";
import { PausedError, type ReadCalls } from "./read-calls";
import type { UpdateTracker } from "./update-tracker";

/** What one catch-up did; logged as one line. */
export interface CatchUpSummary {
  /** Messages handed to the inbound pipeline (duplicates included; the pipeline keeps one). */
  readonly messages: number;
  /** Distinct chats those messages were in. */
  readonly chats: number;
  /** Telegram requests made. */
  readonly requests: number;
  readonly ms: number;
}

export interface CatchUpOptions {
  /** The GramJS client (messages are finished against it, as live ones are). */
  readonly client: TelegramClient;
  /** Every request goes through here: bounded in time, held back while its method is flood-paused. */
  readonly reads: ReadCalls;
  readonly entities: EntityStore;
  readonly state: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly feed: MessageFeed;
  /** Telegram stated its time (unix seconds): the date of getState or of a difference (telegram-time.ts). */
  readonly onServerTime?: (unixSec: number) => void;
  /** Telegram's time (ms), what message dates are compared with (how young; default clockNow). */
  readonly telegramNow?: () => number;
  /** Highest stored message id of a chat (getHistory starts above it). */
  readonly highestId: (chatId: string) => number | undefined;
  /** Chats with stored messages that are DMs or basic groups (for a `differenceTooLong`). */
  readonly commonChats: () => string[];
  readonly logger: Logger;
  readonly now: () => number;
  /** The runtime's clock (ms): what "recent" and "young enough to answer" mean. */
  readonly clockNow: () => number;
  /** Messages older than this are not answered (default 1 h): history is not paged past them. */
  readonly maxAnswerAgeMs?: number;
  /** Told after each box (the account's, then each channel) is done. */
  readonly onProgress?: (done: number, total: number, messages: number) => void;
  /** Channel differences fetched at once (default 4). */
  readonly concurrency?: number;
  /** Other updates of a difference (edits, deletions), applied after its new messages are fed. */
  readonly onOtherUpdates?: (updates: readonly Api.TypeUpdate[]) => void;
  /**
   * Telegram says the account is not in this channel any more (CHANNEL_PRIVATE, CHANNEL_INVALID)
   * or, frozen, may not reach it (FROZEN_PARTICIPANT_MISSING): the caller forgets it. Nothing is retried.
   */
  readonly onChannelLost?: (channelId: string, error: string) => void;
  /** A channel's difference was answered, with the server's `timeout` (seconds) when it named one. */
  readonly onChannelFetched?: (channelId: string, timeoutSec: number | undefined) => void;
}

/** The box is not asked before `until` (Telegram named when); its retry is set for then. No request. */
export class HeldError extends Error {
  constructor(
    readonly box: string,
    readonly until: number,
  ) {
    super(`${box || "account"}: not asked again before ${new Date(until).toISOString()}`);
    this.name = "HeldError";
  }
}

/** The stored pts is not one the server can start from: take the server's current state instead. */
export const STATE_RESET = new Set(["PERSISTENT_TIMESTAMP_INVALID", "PERSISTENT_TIMESTAMP_EMPTY"]);
/** The server's replicas are behind ("try again later"): not before this long. */
const OUTDATED_BACKOFF_MS = 5 * 60_000;
/** Default answer-age limit (the pipeline's MAX_ANSWER_AGE_MS). */
const DEFAULT_MAX_ANSWER_AGE_MS = 3_600_000;
/** Dialogs looked at (one page, Telegram's maximum). */
const DIALOGS_PAGE = 100;

export const rpcName = (e: unknown): string | undefined =>
  e instanceof errors.RPCError ? e.errorMessage : undefined;

/** A failure that never reached Telegram: its method is flood-paused (the wait was logged once). */
export const notAsked = (err: unknown): boolean => err instanceof PausedError && err.cause === undefined;

/**
 * An addressable supergroup the account is in. Broadcast channels are left out: their posts are
 * never stored (not conversation), so catching them up would only cost requests (and
 * FLOOD_WAITs); so are channels the account left or was removed from.
 */
export function catchable(entities: EntityStore, channelId: string): boolean {
  const e = entities.get(channelId);
  return inputChannelOf(e) !== undefined && !e?.broadcast && !e?.gone;
}

/** One messages.getDialogs page of the newest dialogs (no offset, no hash: always a full answer). */
export function newestDialogs(): Api.messages.GetDialogs {
  return new Api.messages.GetDialogs({
    offsetDate: 0,
    offsetId: 0,
    offsetPeer: new Api.InputPeerEmpty(),
    limit: DIALOGS_PAGE,
    hash: returnBigInt(0),
  });
}

/**
 * What every part of a catch-up shares (the account's difference, the channels', the dialogs,
 * the history backfill): the options, the requests made through the read calls (counted), and
 * the hand-over of messages to the inbound feed (counted, with their chats).
 */
export class CatchUpSession {
  requests = 0;
  messages = 0;
  readonly chats = new Set<string>();

  constructor(readonly o: CatchUpOptions) {}

  /** Counts back to zero (a new catch-up run). */
  reset(): void {
    this.requests = 0;
    this.messages = 0;
    this.chats.clear();
  }

  get maxAnswerAgeMs(): number {
    return this.o.maxAnswerAgeMs ?? DEFAULT_MAX_ANSWER_AGE_MS;
  }

  telegramNow(): number {
    return (this.o.telegramNow ?? this.o.clockNow)();
  }

  catchable(channelId: string): boolean {
    return catchable(this.o.entities, channelId);
  }

  /** A request through the read calls; counted when it reached Telegram. */
  async invoke<R extends Api.AnyRequest>(req: R): Promise<R["__response"]> {
    try {
      const res = await this.o.reads.invoke(req);
      this.requests++;
      return res;
    } catch (e) {
      if (!notAsked(e)) this.requests++;
      throw e;
    }
  }

  /** When a failed sync of a box is retried, if the failure says (else the tracker's backoff). */
  retryAt(e: unknown): number | undefined {
    if (e instanceof PausedError) return e.until;
    if (rpcName(e) === "PERSISTENT_TIMESTAMP_OUTDATED") return this.o.clockNow() + OUTDATED_BACKOFF_MS;
    return undefined;
  }

  /** Hand messages over in order and wait until the pipeline has them (stored, enqueued). */
  async feedAll(
    list: readonly Api.TypeMessage[],
    users: Api.TypeUser[],
    chats: Api.TypeChat[],
  ): Promise<void> {
    captureEntities(this.o.entities, [...users, ...chats]);
    const entities = new Map<string, Api.TypeUser | Api.TypeChat>();
    for (const x of [...users, ...chats]) entities.set(utils.getPeerId(x), x);
    const msgs = list
      .filter((m): m is Api.Message => m instanceof Api.Message)
      .sort((a, b) => a.date - b.date || a.id - b.id);
    const pending: Promise<unknown>[] = [];
    // Service messages are not conversation (not counted): only a forum topic's title is taken.
    for (const m of list) if (m instanceof Api.MessageService) pending.push(this.o.feed(m));
    for (const m of msgs) {
      (m as GramMessage)._finishInit(this.o.client, entities, undefined);
      this.messages++;
      this.chats.add(utils.getPeerId(m.peerId));
      pending.push(this.o.feed(m));
    }
    await Promise.all(pending);
  }
}
