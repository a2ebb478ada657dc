import type { Logger } from "pino";
import { Api, errors, utils, type TelegramClient } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { EntityStore } from "../../store/entities";
import { ACCOUNT_BOX, type UpdateStateStore } from "../../store/update-state";
import { captureEntities, inputChannelOf, inputPeerOf } from "../entities";
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

/**
 * Answers to a channel request that mean the account is no longer in it (or it is gone), or — a
 * frozen account — may not reach it (FROZEN_PARTICIPANT_MISSING, which TDLib treats as
 * CHANNEL_PRIVATE; an update from the channel after the freeze follows it again).
 */
const CHANNEL_LOST = new Set(["CHANNEL_PRIVATE", "CHANNEL_INVALID", "FROZEN_PARTICIPANT_MISSING"]);
/** The stored pts is not one the server can start from: take the server's current state instead. */
const STATE_RESET = new Set(["PERSISTENT_TIMESTAMP_INVALID", "PERSISTENT_TIMESTAMP_EMPTY"]);
/** The server's replicas are behind ("try again later"): not before this long. */
const OUTDATED_BACKOFF_MS = 5 * 60_000;

const rpcName = (e: unknown): string | undefined =>
  e instanceof errors.RPCError ? e.errorMessage : undefined;

/** The name of a "not in this channel any more" error, else undefined. */
function channelLostError(e: unknown): string | undefined {
  const name = rpcName(e);
  return name !== undefined && CHANNEL_LOST.has(name) ? name : undefined;
}

/** Telegram's limit on messages per getChannelDifference for user accounts. */
const CHANNEL_DIFFERENCE_LIMIT = 100;
/** Messages per getHistory page (Telegram's maximum). */
const HISTORY_PAGE = 100;
/**
 * A supergroup found only through the dialogs (never seen, or its state lost) is fetched only
 * when active this recently (what could still be answered; a quiet group the persona never saw
 * is followed from its next message), and at most this many per catch-up, as are followed ones
 * whose dialog shows a pts above ours: an account in many groups never pays a page for each.
 */
const UNSEEN_RECENT_MS = 3_600_000;
const DIALOG_FETCH_MAX = 10;
/** A history backfill above the highest stored message takes at most this many (newest first). */
const MAX_BACKFILL = 1000;
/** Dialogs looked at (one page, Telegram's maximum). */
const DIALOGS_PAGE = 100;
/** At most this many channels named by one difference are fetched in one catch-up. */
const MAX_NAMED = 1000;
/** Default answer-age limit (the pipeline's MAX_ANSWER_AGE_MS). */
const DEFAULT_MAX_ANSWER_AGE_MS = 3_600_000;

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
 * Catch-up by Telegram's book ("Working with updates": at start only `updates.getDifference`;
 * `getChannelDifference` is not called for every channel):
 *
 * - `updates.getDifference` from the stored account state until it is final (slices continue
 *   from their intermediate state; `differenceTooLong` refetches from the pts it names after the
 *   DMs and basic groups were read from the dialogs);
 * - `updates.getChannelDifference` only for the channels that difference names
 *   (`updateChannelTooLong`), bounded in concurrency — a quiet supergroup costs nothing;
 * - after a first start, one `messages.getDialogs` page (the newest dialogs): a supergroup there
 *   that is not followed (never seen, or its state lost) and was active lately, or a followed one
 *   whose pts is above ours, is fetched too (at most 10).
 *
 * Gaps seen while running, channels silent for long and the big groups the persona is active in
 * are fetched one channel at a time (`channelOnly`, channel-watch.ts). A channel without stored
 * state is read with one `messages.getHistory` page and followed from the answer's pts; after
 * `channelDifferenceTooLong` the messages in the answer are used, and at most one more page is
 * read, only when those are still young enough to answer.
 *
 * Failures: PERSISTENT_TIMESTAMP_INVALID / _EMPTY reset the box to the server's state (the
 * account's with `updates.getState`, a channel's from its `messages.channelMessages` pts) and
 * log the gap skipped; _OUTDATED retries after 5 minutes; a flood wait retries when it ends (no
 * request meanwhile, read-calls.ts); anything else (a request that timed out included) retries
 * with the tracker's backoff. The account part failing never stops the channel part.
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

  private get maxAnswerAgeMs(): number {
    return this.o.maxAnswerAgeMs ?? DEFAULT_MAX_ANSWER_AGE_MS;
  }

  async run(): Promise<CatchUpSummary> {
    const t0 = this.o.now();
    this.requests = 0;
    this.messages = 0;
    this.chats.clear();
    const firstStart = this.o.state.account() === undefined;
    const named = new Set<string>();
    let accountError: unknown;
    try {
      await this.account(named);
    } catch (err) {
      // The channel part goes on: the channels named so far, and the dialogs' look below.
      accountError = err;
    }
    const list = [...named].filter((c) => this.catchable(c));
    if (list.length > MAX_NAMED)
      this.o.logger.warn(
        { component: "catch-up", channels: list.length, max: MAX_NAMED },
        "too many channels named; catching up the first ones only (the others at their next update)",
      );
    const channels = list.slice(0, MAX_NAMED);
    this.o.onProgress?.(1, 1 + channels.length, this.messages);
    await this.channels(channels, (done) =>
      this.o.onProgress?.(1 + done, 1 + channels.length, this.messages),
    );
    // A first start begins from now; later ones look at the newest dialogs.
    if (!firstStart) await this.dialogs(new Set(channels));
    // A box Telegram asked to leave for later is not a failure: its retry is set.
    if (accountError !== undefined && !(accountError instanceof HeldError)) throw accountError;
    return {
      messages: this.messages,
      chats: this.chats.size,
      requests: this.requests,
      ms: this.o.now() - t0,
    };
  }

  /** Catch up one channel (a gap seen while running, a poll, a channel Telegram named live). */
  async channelOnly(channelId: string): Promise<void> {
    await this.channel(channelId);
  }

  /** Catch up the account's common box, then the channels its difference names. */
  async accountOnly(): Promise<void> {
    const named = new Set<string>();
    await this.account(named);
    await this.channels(
      [...named].filter((c) => this.catchable(c)),
      () => undefined,
    );
  }

  /** Fetch each channel (bounded concurrency); failures are logged (the tracker retries them). */
  private async channels(list: readonly string[], progress: (done: number) => void): Promise<void> {
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < list.length) {
        const c = list[next++]!;
        try {
          await this.channel(c);
        } catch (err) {
          this.logFailure(c, err);
        }
        progress(++done);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency ?? 4, list.length) }, worker));
  }

  private logFailure(chatId: string, err: unknown): void {
    // A method paused by a flood wait, or a box Telegram asked to leave for later, was not even
    // asked (the wait was logged once).
    const paused = (err instanceof PausedError && err.cause === undefined) || err instanceof HeldError;
    this.o.logger[paused ? "debug" : "warn"](
      { component: "catch-up", chatId, err: String(err) },
      "channel catch-up failed; retried later",
    );
  }

  private catchable(channelId: string): boolean {
    return catchable(this.o.entities, channelId);
  }

  /** A request through the read calls; counted when it reached Telegram. */
  private async invoke<R extends Api.AnyRequest>(req: R): Promise<R["__response"]> {
    try {
      const res = await this.o.reads.invoke(req);
      this.requests++;
      return res;
    } catch (e) {
      if (!(e instanceof PausedError) || e.cause !== undefined) this.requests++;
      throw e;
    }
  }

  /** When a failed sync of a box is retried, if the failure says (else the tracker's backoff). */
  private retryAt(e: unknown): number | undefined {
    if (e instanceof PausedError) return e.until;
    if (rpcName(e) === "PERSISTENT_TIMESTAMP_OUTDATED") return this.o.clockNow() + OUTDATED_BACKOFF_MS;
    return undefined;
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
   * The newest dialogs (one getDialogs page), after every catch-up but a first start. Fetched
   * from there, at most DIALOG_FETCH_MAX: a supergroup that is not followed (a group whose first
   * message came while the database was busy, before a crash; one whose state was lost) whose
   * top message is a real one above what is stored and less than an hour old (TDLib fetches a
   * newly learned dialog whose pts is ahead), and a followed one whose dialog pts is above ours
   * (an update lost without a gap to show it). Broadcast channels and channels the account left
   * are not. One request when there is nothing new.
   */
  private async dialogs(handled: ReadonlySet<string>): Promise<void> {
    const fresh: Api.Channel[] = [];
    const behind: string[] = [];
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
        if (fresh.length + behind.length >= DIALOG_FETCH_MAX) break;
        const id = utils.getPeerId(d.peer);
        const c = chats.get(id);
        if (handled.has(id) || !(c instanceof Api.Channel) || !c.megagroup || c.left) continue;
        const ours = this.o.tracker.localPts(id);
        if (ours !== undefined) {
          // One whose fetch failed waits for its own retry.
          const waiting = this.o.tracker.pending(id);
          if (d.pts !== undefined && d.pts > ours && !waiting && this.catchable(id)) behind.push(id);
          continue;
        }
        if (serviceTops.has(`${id}:${d.topMessage}`)) continue;
        if ((topDates.get(`${id}:${d.topMessage}`) ?? 0) < since) continue;
        if (d.topMessage > (this.o.highestId(id) ?? 0)) fresh.push(c);
      }
    } catch (err) {
      const paused = err instanceof PausedError && err.cause === undefined;
      this.o.logger[paused ? "debug" : "warn"](
        { component: "catch-up", err: String(err) },
        "getDialogs failed; no look at the newest dialogs this time",
      );
      return;
    }
    // Only these are captured: the entity store's channels are the ones followed from now on.
    captureEntities(this.o.entities, fresh);
    await this.channels([...fresh.map((c) => utils.getPeerId(c)), ...behind], () => undefined);
  }

  /**
   * The account's box; `named` gets the channels its difference names (`updateChannelTooLong`).
   * A first start (no stored state) only records the current state: nothing caught up, from now on.
   */
  private async account(named: Set<string>): Promise<void> {
    const t = this.o.tracker;
    // Telegram asked to come back later (a flood wait, OUTDATED): the retry is set for then.
    const held = t.heldUntil(ACCOUNT_BOX);
    if (held > 0) throw new HeldError(ACCOUNT_BOX, held);
    t.beginSync(ACCOUNT_BOX);
    try {
      const stored = this.o.state.account();
      const local = t.localPts(ACCOUNT_BOX);
      if (!stored || local === undefined) {
        const s = await this.invoke(new Api.updates.GetState());
        t.endSync(ACCOUNT_BOX, s.pts, { qts: s.qts, date: s.date, seq: s.seq });
        // Without this baseline on disk, a crash now would make the next start a "first" one
        // and skip what arrives meanwhile.
        this.o.state.commit();
        return;
      }
      let st = { pts: local, qts: stored.qts, date: stored.date, seq: stored.seq };
      for (;;) {
        const res = await this.invoke(
          new Api.updates.GetDifference({ pts: st.pts, date: st.date, qts: st.qts }),
        );
        if (res instanceof Api.updates.DifferenceEmpty) {
          t.endSync(ACCOUNT_BOX, st.pts, { qts: st.qts, date: res.date, seq: res.seq });
          return;
        }
        if (res instanceof Api.updates.DifferenceTooLong) {
          // "The specified state must be used to refetch updates": the DMs and basic groups are
          // read from the dialogs, then the difference continues from the pts it names (its
          // answer names the channels with news).
          await this.commonHistory();
          st = { ...st, pts: Math.max(st.pts, res.pts) };
          t.syncedTo(ACCOUNT_BOX, st.pts);
          continue;
        }
        const channelMsgs: Api.TypeMessage[] = [];
        for (const u of res.otherUpdates) {
          if (u instanceof Api.UpdateChannelTooLong) named.add(`-100${u.channelId.toString()}`);
          else if (u instanceof Api.UpdateNewChannelMessage) channelMsgs.push(u.message);
          else if (u instanceof Api.UpdateNewMessage) channelMsgs.push(u.message);
        }
        await this.feedAll([...res.newMessages, ...channelMsgs], res.users, res.chats);
        this.o.onOtherUpdates?.(res.otherUpdates);
        const next = res instanceof Api.updates.Difference ? res.state : res.intermediateState;
        st = { pts: next.pts, qts: next.qts, date: next.date, seq: next.seq };
        if (res instanceof Api.updates.Difference) {
          t.endSync(ACCOUNT_BOX, st.pts, st);
          return;
        }
        t.syncedTo(ACCOUNT_BOX, st.pts, st);
      }
    } catch (err) {
      if (STATE_RESET.has(rpcName(err) ?? "")) {
        try {
          return await this.resetAccount(rpcName(err)!);
        } catch (again) {
          t.failSync(ACCOUNT_BOX, this.retryAt(again));
          throw again;
        }
      }
      // Release what was held (live updates must not wait for a catch-up that failed); the
      // tracker keeps the gap and retries.
      t.failSync(ACCOUNT_BOX, this.retryAt(err));
      throw err;
    }
  }

  /**
   * The server cannot start from the stored account state: take its current state
   * (`updates.getState`), as TDLib and mtcute do. What happened in between is not fetched; the
   * gap is logged.
   */
  private async resetAccount(error: string): Promise<void> {
    const from = this.o.tracker.localPts(ACCOUNT_BOX);
    const s = await this.invoke(new Api.updates.GetState());
    this.o.tracker.reset(ACCOUNT_BOX, s.pts, { qts: s.qts, date: s.date, seq: s.seq });
    this.o.logger.warn(
      { component: "catch-up", box: "account", rpcError: error, fromPts: from, toPts: s.pts },
      `${error} on getDifference: the account's update state is reset to Telegram's (pts ${from ?? "?"} → ${s.pts}); DMs and basic-group messages in between are not fetched`,
    );
  }

  private async channel(channelId: string): Promise<void> {
    const t = this.o.tracker;
    // Broadcast channels and channels the account is not in are never fetched (see catchable).
    if (!this.catchable(channelId)) return;
    const held = t.heldUntil(channelId);
    if (held > 0) throw new HeldError(channelId, held);
    const input = inputChannelOf(this.o.entities.get(channelId))!;
    t.beginSync(channelId);
    try {
      await this.syncChannel(channelId, input);
    } catch (e) {
      const lost = channelLostError(e);
      if (lost) {
        // Not a gap to retry: the account is out of this channel. One request, then never again.
        t.drop(channelId);
        this.o.onChannelLost?.(channelId, lost);
        return;
      }
      const name = rpcName(e);
      if (name !== undefined && STATE_RESET.has(name)) {
        try {
          return await this.resetChannel(channelId, name);
        } catch (again) {
          t.failSync(channelId, this.retryAt(again));
          throw again;
        }
      }
      t.failSync(channelId, this.retryAt(e));
      throw e;
    }
  }

  private async syncChannel(channelId: string, input: Api.InputChannel): Promise<void> {
    const t = this.o.tracker;
    let pts = t.localPts(channelId);
    if (pts === undefined) {
      // No state (never followed, or lost): its newest messages, then followed from their pts.
      const top = await this.history(channelId, this.o.highestId(channelId));
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
      this.o.onChannelFetched?.(channelId, res.timeout ?? undefined);
      if (res instanceof Api.updates.ChannelDifferenceEmpty) {
        t.endSync(channelId, res.pts);
        return;
      }
      if (res instanceof Api.updates.ChannelDifferenceTooLong) {
        const top = await this.tooLong(channelId, res);
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
   * Too much happened in the channel: the answer carries its newest messages (and the dialog's
   * pts, where it continues). Those above what is stored are handed over; one more history page
   * below them is read only when they do not reach what is stored and the oldest of them is still
   * young enough to answer — never the whole gap (it would draw FLOOD_WAIT on getHistory, for
   * messages nobody answers). Returns the pts of that page's answer, if one was read.
   */
  private async tooLong(
    channelId: string,
    res: Api.updates.ChannelDifferenceTooLong,
  ): Promise<number | undefined> {
    const highest = this.o.highestId(channelId) ?? 0;
    const real = res.messages.filter(
      (m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty),
    );
    await this.feedAll(
      real.filter((m) => m.id > highest),
      res.users,
      res.chats,
    );
    let oldest: Api.Message | Api.MessageService | undefined;
    for (const m of real) if (!oldest || m.id < oldest.id) oldest = m;
    if (!oldest || oldest.id <= highest + 1) return undefined;
    if (oldest.date * 1000 < this.o.clockNow() - this.maxAnswerAgeMs) return undefined;
    return this.history(channelId, highest, { offsetId: oldest.id, pages: 1 });
  }

  /**
   * The server cannot start from the channel's stored pts: its newest messages (one history
   * page, above what is stored), and the channel followed from that answer's pts — the `pts` of
   * `messages.channelMessages`, the channel's event count when the answer was made. The gap is
   * logged.
   */
  private async resetChannel(channelId: string, error: string): Promise<void> {
    const from = this.o.tracker.localPts(channelId);
    const pts = await this.history(channelId, this.o.highestId(channelId), { pages: 1 });
    if (pts === undefined) throw new Error(`no channel pts in the history of ${channelId}`);
    this.o.tracker.reset(channelId, pts);
    this.o.logger.warn(
      { component: "catch-up", chatId: channelId, rpcError: error, fromPts: from, toPts: pts },
      `${error} on getChannelDifference: ${channelId} is followed again from its newest messages (pts ${from ?? "?"} → ${pts}); older updates in between are not fetched`,
    );
  }

  /**
   * DMs and basic groups after a `differenceTooLong`: the newest dialogs (one getDialogs page,
   * so new chats — a DM from someone never seen — are found too), each whose top message is above
   * what is stored backfilled from there (nothing stored: its newest page). Supergroups catch up
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
   * Messages above `minId` with `messages.getHistory`, newest page first (from `offsetId`),
   * handed over oldest first. Without `minId` (nothing stored) one page. A next page is read only
   * while the last one was full, its oldest message is still young enough to answer, and fewer
   * than `pages` pages (default: up to MAX_BACKFILL messages) were read. Returns the channel's pts
   * from the answer (`messages.channelMessages`), if it carried one.
   */
  private async history(
    chatId: string,
    minId: number | undefined,
    o: { offsetId?: number; pages?: number } = {},
  ): Promise<number | undefined> {
    const peer = inputPeerOf(this.o.entities.get(chatId));
    if (!peer) return undefined;
    const all: Api.TypeMessage[] = [];
    const users: Api.TypeUser[] = [];
    const chats: Api.TypeChat[] = [];
    const youngSince = this.o.clockNow() - this.maxAnswerAgeMs;
    let pts: number | undefined;
    let offsetId = o.offsetId ?? 0;
    for (let page = 1; ; page++) {
      const res: Api.messages.TypeMessages = await this.invoke(
        new Api.messages.GetHistory({
          peer,
          offsetId,
          offsetDate: 0,
          addOffset: 0,
          limit: HISTORY_PAGE,
          maxId: 0,
          minId: minId ?? 0,
          hash: returnBigInt(0),
        }),
      );
      if (res instanceof Api.messages.MessagesNotModified) break;
      if (res instanceof Api.messages.ChannelMessages) pts ??= res.pts;
      users.push(...res.users);
      chats.push(...res.chats);
      const got = res.messages.filter(
        (m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty) && m.id > (minId ?? 0),
      );
      all.push(...got);
      if (minId === undefined || got.length < HISTORY_PAGE || all.length >= MAX_BACKFILL) break;
      if (page >= (o.pages ?? Infinity)) break;
      const oldest = got.reduce((a, b) => (b.id < a.id ? b : a));
      if (oldest.date * 1000 < youngSince) break;
      offsetId = oldest.id;
    }
    await this.feedAll(all, users, chats);
    return pts;
  }
}
