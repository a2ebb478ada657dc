import type { Logger } from "pino";
import { Api, errors, utils, type TelegramClient } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { EntityStore } from "../../store/entities";
import { ACCOUNT_BOX, type UpdateStateStore } from "../../store/update-state";
import { captureEntities, inputChannelOf, inputPeerOf } from "../entities";
import type { MessageFeed } from "./message-feed";
import type { GramMessage } from "./parse";
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
  readonly client: TelegramClient;
  readonly entities: EntityStore;
  readonly state: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly feed: MessageFeed;
  /** Highest stored message id of a chat (getHistory starts above it). */
  readonly highestId: (chatId: string) => number | undefined;
  /** Chats with stored messages that are DMs or basic groups (for a `differenceTooLong`). */
  readonly commonChats: () => string[];
  /** Supergroups the store knows (beside the entity store's channels). */
  readonly knownChannels: () => string[];
  readonly logger: Logger;
  readonly now: () => number;
  /** The runtime's clock (ms): what "recent" means for a supergroup found only in the dialogs. */
  readonly clockNow: () => number;
  /** Told after each box (the account's, then each channel) is done. */
  readonly onProgress?: (done: number, total: number, messages: number) => void;
  /** At most this many channels per catch-up (default 1,000). */
  readonly maxChannels?: number;
  /** Channel differences fetched at once (default 4). */
  readonly concurrency?: number;
  /** Other updates of a difference (edits, deletions), applied after its new messages are fed. */
  readonly onOtherUpdates?: (updates: readonly Api.TypeUpdate[]) => void;
  /**
   * Telegram says the account is not in this channel any more (CHANNEL_PRIVATE, CHANNEL_INVALID)
   * or, frozen, may not reach it (FROZEN_PARTICIPANT_MISSING): the caller forgets it. Nothing is retried.
   */
  readonly onChannelLost?: (channelId: string, error: string) => void;
}

/**
 * Answers to a channel request that mean the account is no longer in it (or it is gone), or — a
 * frozen account — may not reach it (FROZEN_PARTICIPANT_MISSING, which TDLib treats as
 * CHANNEL_PRIVATE; an update from the channel after the freeze follows it again).
 */
const CHANNEL_LOST = new Set(["CHANNEL_PRIVATE", "CHANNEL_INVALID", "FROZEN_PARTICIPANT_MISSING"]);

/** The name of a "not in this channel any more" error, else undefined. */
function channelLostError(e: unknown): string | undefined {
  return e instanceof errors.RPCError && CHANNEL_LOST.has(e.errorMessage) ? e.errorMessage : undefined;
}

/** Telegram's limit on messages per getChannelDifference for user accounts. */
const CHANNEL_DIFFERENCE_LIMIT = 100;
/** Messages per getHistory page (Telegram's maximum). */
const HISTORY_PAGE = 100;
/** Without any stored message of a channel, look back at most this many messages. */
const FRESH_CHANNEL_LOOKBACK = 20;
/**
 * A supergroup found only through the dialogs (never seen, or its state lost): one getHistory
 * page, so everything since the account joined a young group is there, and a busy group still
 * costs one request (messages past the answer-age limit are stored, never answered).
 */
const UNSEEN_CHANNEL_LOOKBACK = HISTORY_PAGE;
/**
 * Only unseen supergroups active this recently are fetched (what could still be answered; a quiet
 * group the persona never saw is followed from its next message), and at most this many per
 * catch-up: an account in many groups never pays a history page for each.
 */
const UNSEEN_RECENT_MS = 3_600_000;
const UNSEEN_MAX = 10;
/** A history backfill above the highest stored message takes at most this many (newest first). */
const MAX_BACKFILL = 1000;
/** Dialogs looked at after a `differenceTooLong` (one page, Telegram's maximum). */
const DIALOGS_PAGE = 100;

/** One messages.getDialogs page of the newest dialogs (no offset, no hash: always a full answer). */
function newestDialogs(): Api.messages.GetDialogs {
  return new Api.messages.GetDialogs({
    offsetDate: 0,
    offsetId: 0,
    offsetPeer: new Api.InputPeerEmpty(),
    limit: DIALOGS_PAGE,
    hash: returnBigInt(0),
  });
}

/**
 * Catch-up after downtime or a dead connection, as Telegram's update protocol describes it:
 * `updates.getDifference` from the stored account state until it is final (slices continue from
 * their intermediate state); `updates.getChannelDifference` for every known channel (bounded in
 * number and concurrency); `channelDifferenceTooLong`, `differenceTooLong` or a channel without
 * stored state fall back to `messages.getHistory` above the chat's highest stored message.
 *
 * Every message goes through the same feed as live updates (the inbound pipeline dedupes on
 * (agent, chat, id)), and each box's state is advanced only after its messages were handed
 * over, so a crash at any point repeats work and never skips it. Live updates of a box being
 * synced are held by the tracker and run after it.
 */
export class CatchUp {
  private requests = 0;
  private messages = 0;
  private readonly chats = new Set<string>();

  constructor(private readonly o: CatchUpOptions) {}

  async run(): Promise<CatchUpSummary> {
    const t0 = this.o.now();
    this.requests = 0;
    this.messages = 0;
    this.chats.clear();
    const extraChannels = new Set<string>();
    const channels = this.channelList(extraChannels);
    const total = 1 + channels.length;
    let done = 0;
    const firstStart = await this.account(extraChannels);
    this.o.onProgress?.(++done, total + extraChannels.size, this.messages);
    for (const c of extraChannels) if (!channels.includes(c) && this.catchable(c)) channels.push(c);
    const max = this.o.maxChannels ?? 1000;
    const list = channels.slice(0, max);
    if (channels.length > max)
      this.o.logger.warn(
        { component: "catch-up", channels: channels.length, max },
        "too many channels; catching up the first ones only",
      );
    let next = 0;
    const worker = async () => {
      while (next < list.length) {
        const c = list[next++]!;
        try {
          await this.channel(c);
        } catch (err) {
          this.o.tracker.failSync(c);
          this.o.logger.warn(
            { component: "catch-up", chatId: c, err: String(err) },
            "channel catch-up failed",
          );
        }
        this.o.onProgress?.(++done, 1 + list.length, this.messages);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency ?? 4, list.length) }, worker));
    // A first start begins from now; later ones look for supergroups nothing above named.
    if (!firstStart) await this.unseenChannels(new Set(channels));
    return {
      messages: this.messages,
      chats: this.chats.size,
      requests: this.requests,
      ms: this.o.now() - t0,
    };
  }

  /** Catch up one channel (a gap seen while running). */
  async channelOnly(channelId: string): Promise<void> {
    try {
      await this.channel(channelId);
    } catch (err) {
      this.o.tracker.failSync(channelId);
      throw err;
    }
  }

  /** Catch up the account's common box only (a gap seen while running). */
  async accountOnly(): Promise<void> {
    const extra = new Set<string>();
    await this.account(extra);
    await Promise.all([...extra].map((c) => this.channelOnly(c).catch(() => undefined)));
  }

  private channelList(extra: Set<string>): string[] {
    const all = new Set([
      ...this.o.tracker.knownChannels(),
      ...this.o.entities.channels().map((e) => e.peerId),
      ...this.o.knownChannels(),
    ]);
    for (const c of extra) all.add(c);
    return [...all].filter((c) => this.catchable(c));
  }

  /**
   * An addressable supergroup the account is in. Broadcast channels are left out: their posts
   * are never stored (not conversation), so catching them up would only cost requests (and
   * FLOOD_WAITs); so are channels the account left or was removed from.
   */
  private catchable(channelId: string): boolean {
    const e = this.o.entities.get(channelId);
    return inputChannelOf(e) !== undefined && !e?.broadcast && !e?.gone;
  }

  private async invoke<R extends Api.AnyRequest>(req: R): Promise<R["__response"]> {
    this.requests++;
    return this.o.client.invoke(req);
  }

  /** Hand messages over in order and wait until the pipeline has them (stored, enqueued). */
  private async feedAll(
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

  /**
   * Supergroups the stored state does not know (a group whose first message came while the
   * database was busy, before a crash; one whose state was lost): one getDialogs page (the
   * newest dialogs) finds those with a top message above what is stored, and each is caught up
   * like a channel without state (its last few messages, then followed from its pts). Broadcast
   * channels and channels the account left are not. One request when there is nothing new.
   */
  private async unseenChannels(handled: ReadonlySet<string>): Promise<void> {
    const fresh: Api.Channel[] = [];
    try {
      const res = await this.invoke(newestDialogs());
      if (res instanceof Api.messages.DialogsNotModified) return;
      const chats = new Map(res.chats.map((c) => [utils.getPeerId(c), c]));
      // A group whose newest message is a service one (created, the account added) has nothing
      // to store or answer yet; its first real message will come live or by the next catch-up.
      const serviceTops = new Set(
        res.messages
          .filter((m) => m instanceof Api.MessageService)
          .map((m) => `${utils.getPeerId(m.peerId)}:${m.id}`),
      );
      const topDates = new Map(
        res.messages
          .filter((m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty))
          .map((m) => [`${utils.getPeerId(m.peerId)}:${m.id}`, m.date * 1000]),
      );
      const since = this.o.clockNow() - UNSEEN_RECENT_MS;
      for (const d of res.dialogs) {
        if (!(d instanceof Api.Dialog) || !(d.peer instanceof Api.PeerChannel)) continue;
        const id = utils.getPeerId(d.peer);
        const c = chats.get(id);
        if (handled.has(id) || !(c instanceof Api.Channel) || !c.megagroup || c.left) continue;
        if (serviceTops.has(`${id}:${d.topMessage}`)) continue;
        if ((topDates.get(`${id}:${d.topMessage}`) ?? 0) < since) continue;
        if (d.topMessage > (this.o.highestId(id) ?? 0) && fresh.length < UNSEEN_MAX) fresh.push(c);
      }
    } catch (err) {
      this.o.logger.warn({ component: "catch-up", err: String(err) }, "getDialogs failed; no unseen groups");
      return;
    }
    // Only these are captured: the entity store's channels are the ones caught up from now on.
    captureEntities(this.o.entities, fresh);
    for (const c of fresh) {
      const id = utils.getPeerId(c);
      try {
        await this.channel(id, UNSEEN_CHANNEL_LOOKBACK);
      } catch (err) {
        this.o.tracker.failSync(id);
        this.o.logger.warn(
          { component: "catch-up", chatId: id, err: String(err) },
          "channel catch-up failed",
        );
      }
    }
  }

  /** The account's box; true on a first start (no stored state: nothing caught up, from now on). */
  private async account(extraChannels: Set<string>): Promise<boolean> {
    const t = this.o.tracker;
    t.beginSync(ACCOUNT_BOX);
    try {
      const stored = this.o.state.account();
      const local = t.localPts(ACCOUNT_BOX);
      if (!stored || local === undefined) {
        // First start on this account: nothing to catch up, start from now.
        const s = await this.invoke(new Api.updates.GetState());
        t.endSync(ACCOUNT_BOX, s.pts, { qts: s.qts, date: s.date, seq: s.seq });
        // Without this baseline on disk, a crash now would make the next start a "first" one
        // and skip what arrives meanwhile.
        this.o.state.commit();
        return true;
      }
      let st = { pts: local, qts: stored.qts, date: stored.date, seq: stored.seq };
      for (;;) {
        const res = await this.invoke(
          new Api.updates.GetDifference({ pts: st.pts, date: st.date, qts: st.qts }),
        );
        if (res instanceof Api.updates.DifferenceEmpty) {
          t.endSync(ACCOUNT_BOX, st.pts, { qts: st.qts, date: res.date, seq: res.seq });
          return false;
        }
        if (res instanceof Api.updates.DifferenceTooLong) {
          await this.commonHistory();
          const s = await this.invoke(new Api.updates.GetState());
          t.endSync(ACCOUNT_BOX, Math.max(res.pts, s.pts), { qts: s.qts, date: s.date, seq: s.seq });
          return false;
        }
        const channelMsgs: Api.TypeMessage[] = [];
        for (const u of res.otherUpdates) {
          if (u instanceof Api.UpdateChannelTooLong) {
            const box = `-100${u.channelId.toString()}`;
            extraChannels.add(box);
            if (u.pts != null) t.startFrom(box, u.pts); // a channel we have no state for starts there
          } else if (u instanceof Api.UpdateNewChannelMessage) channelMsgs.push(u.message);
          else if (u instanceof Api.UpdateNewMessage) channelMsgs.push(u.message);
        }
        await this.feedAll([...res.newMessages, ...channelMsgs], res.users, res.chats);
        this.o.onOtherUpdates?.(res.otherUpdates);
        const next = res instanceof Api.updates.Difference ? res.state : res.intermediateState;
        st = { pts: next.pts, qts: next.qts, date: next.date, seq: next.seq };
        if (res instanceof Api.updates.Difference) {
          t.endSync(ACCOUNT_BOX, st.pts, st);
          return false;
        }
        t.syncedTo(ACCOUNT_BOX, st.pts, st);
      }
    } catch (err) {
      // Release what was held (live updates must not wait for a catch-up that failed); the
      // tracker keeps the gap and retries.
      t.failSync(ACCOUNT_BOX);
      throw err;
    }
  }

  private async channel(channelId: string, lookback = FRESH_CHANNEL_LOOKBACK): Promise<void> {
    const t = this.o.tracker;
    // Broadcast channels and channels the account is not in are never fetched (see catchable).
    if (!this.catchable(channelId)) return;
    const input = inputChannelOf(this.o.entities.get(channelId))!;
    t.beginSync(channelId);
    try {
      await this.syncChannel(channelId, input, lookback);
    } catch (e) {
      const lost = channelLostError(e);
      if (!lost) throw e;
      // Not a gap to retry: the account is out of this channel. One request, then never again.
      t.drop(channelId);
      this.o.onChannelLost?.(channelId, lost);
    }
  }

  private async syncChannel(channelId: string, input: Api.InputChannel, lookback: number): Promise<void> {
    const t = this.o.tracker;
    let pts = t.localPts(channelId);
    if (pts === undefined) {
      const top = await this.history(channelId, this.o.highestId(channelId), lookback);
      t.endSync(channelId, top);
      return;
    }
    for (;;) {
      const res: Api.updates.TypeChannelDifference = await this.invoke(
        new Api.updates.GetChannelDifference({
          channel: input,
          filter: new Api.ChannelMessagesFilterEmpty(),
          pts,
          limit: CHANNEL_DIFFERENCE_LIMIT,
        }),
      );
      if (res instanceof Api.updates.ChannelDifferenceEmpty) {
        t.endSync(channelId, res.pts);
        return;
      }
      if (res instanceof Api.updates.ChannelDifferenceTooLong) {
        // Too much happened: backfill above what is stored (nothing stored: only the last few,
        // never the whole history), then continue from the dialog's pts.
        captureEntities(this.o.entities, [...res.users, ...res.chats]);
        const top = await this.history(channelId, this.o.highestId(channelId));
        const dialogPts = res.dialog instanceof Api.Dialog ? res.dialog.pts : undefined;
        t.endSync(channelId, dialogPts ?? top);
        return;
      }
      await this.feedAll(res.newMessages, res.users, res.chats);
      this.o.onOtherUpdates?.(res.otherUpdates);
      const reached: number = res.pts;
      pts = reached;
      if (res.final) {
        t.endSync(channelId, reached);
        return;
      }
      t.syncedTo(channelId, reached);
    }
  }

  /**
   * DMs and basic groups after a `differenceTooLong`: the newest dialogs (one getDialogs page,
   * so new chats — a DM from someone never seen — are found too), each whose top message is above
   * what is stored backfilled from there (nothing stored: the last few). Supergroups catch up
   * through their own boxes. Without an answer, the chats with stored messages.
   */
  private async commonHistory(): Promise<void> {
    let chats: { chatId: string; top: number }[] | undefined;
    try {
      const res = await this.invoke(newestDialogs());
      if (!(res instanceof Api.messages.DialogsNotModified)) {
        captureEntities(this.o.entities, [...res.users, ...res.chats]);
        chats = res.dialogs
          .filter((d): d is Api.Dialog => d instanceof Api.Dialog && !(d.peer instanceof Api.PeerChannel))
          .map((d) => ({ chatId: utils.getPeerId(d.peer), top: d.topMessage }));
      }
    } catch (err) {
      this.o.logger.warn(
        { component: "catch-up", err: String(err) },
        "getDialogs failed; backfilling chats with stored messages",
      );
    }
    chats ??= this.o.commonChats().map((chatId) => ({ chatId, top: Number.MAX_SAFE_INTEGER }));
    for (const { chatId, top } of chats) {
      const highest = this.o.highestId(chatId);
      if (highest !== undefined && top <= highest) continue;
      try {
        await this.history(chatId, highest);
      } catch (err) {
        this.o.logger.warn({ component: "catch-up", chatId, err: String(err) }, "history backfill failed");
      }
    }
  }

  /**
   * Everything above `minId` with `messages.getHistory`, newest page first, handed over oldest
   * first, at most the newest MAX_BACKFILL. Without `minId` (nothing stored) only the last
   * `lookback` messages. Returns the channel's pts from the answer, if it carried one.
   */
  private async history(
    chatId: string,
    minId: number | undefined,
    lookback = FRESH_CHANNEL_LOOKBACK,
  ): Promise<number | undefined> {
    const peer = inputPeerOf(this.o.entities.get(chatId));
    if (!peer) return undefined;
    const all: Api.TypeMessage[] = [];
    const users: Api.TypeUser[] = [];
    const chats: Api.TypeChat[] = [];
    let pts: number | undefined;
    let offsetId = 0;
    for (;;) {
      const limit = minId === undefined ? lookback : HISTORY_PAGE;
      const res: Api.messages.TypeMessages = await this.invoke(
        new Api.messages.GetHistory({
          peer,
          offsetId,
          offsetDate: 0,
          addOffset: 0,
          limit,
          maxId: 0,
          minId: minId ?? 0,
          hash: returnBigInt(0),
        }),
      );
      if (res instanceof Api.messages.MessagesNotModified) break;
      if (res instanceof Api.messages.ChannelMessages) pts ??= res.pts;
      users.push(...res.users);
      chats.push(...res.chats);
      const page = res.messages.filter((m) => m.id > (minId ?? 0));
      all.push(...page);
      if (minId === undefined || page.length < limit || all.length >= MAX_BACKFILL) break;
      offsetId = Math.min(...page.map((m) => m.id));
    }
    await this.feedAll(all, users, chats);
    return pts;
  }
}
