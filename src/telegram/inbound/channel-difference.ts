import { Api } from "telegram";
import { inputChannelOf } from "../entities";
import { HeldError, STATE_RESET, notAsked, rpcName, type CatchUpSession } from "./catch-up-session";
import { history } from "./history-backfill";

/**
 * Answers to a channel request that mean the account is no longer in it (or it is gone), or — a
 * frozen account — may not reach it (FROZEN_PARTICIPANT_MISSING, which TDLib treats as
 * CHANNEL_PRIVATE; an update from the channel after the freeze follows it again).
 */
const CHANNEL_LOST = new Set(["CHANNEL_PRIVATE", "CHANNEL_INVALID", "FROZEN_PARTICIPANT_MISSING"]);
/** Telegram's limit on messages per getChannelDifference for user accounts. */
const CHANNEL_DIFFERENCE_LIMIT = 100;

/** The name of a "not in this channel any more" error, else undefined. */
function channelLostError(e: unknown): string | undefined {
  const name = rpcName(e);
  return name !== undefined && CHANNEL_LOST.has(name) ? name : undefined;
}

/** Fetch each channel (bounded concurrency); failures are logged (the tracker retries them). */
export async function channels(
  s: CatchUpSession,
  list: readonly string[],
  progress: (done: number) => void,
): Promise<void> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < list.length) {
      const c = list[next++]!;
      try {
        await channel(s, c);
      } catch (err) {
        logFailure(s, c, err);
      }
      progress(++done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(s.o.concurrency ?? 4, list.length) }, worker));
}

function logFailure(s: CatchUpSession, chatId: string, err: unknown): void {
  // A method paused by a flood wait, or a box Telegram asked to leave for later, was not even
  // asked (the wait was logged once).
  const paused = notAsked(err) || err instanceof HeldError;
  s.o.logger[paused ? "debug" : "warn"](
    { component: "catch-up", chatId, err: String(err) },
    "channel catch-up failed; retried later",
  );
}

/**
 * One channel's box: its difference from the stored pts until final, or — without stored state —
 * its newest history page. CHANNEL_PRIVATE and the like drop it (once, never retried);
 * PERSISTENT_TIMESTAMP_INVALID / _EMPTY reset it from its newest messages; any other failure
 * releases what the tracker held and leaves the gap for its retry.
 */
export async function channel(s: CatchUpSession, channelId: string): Promise<void> {
  const t = s.o.tracker;
  // Broadcast channels and channels the account is not in are never fetched (see catchable).
  if (!s.catchable(channelId)) return;
  const held = t.heldUntil(channelId);
  if (held > 0) throw new HeldError(channelId, held);
  const input = inputChannelOf(s.o.entities.get(channelId))!;
  t.beginSync(channelId);
  try {
    await syncChannel(s, channelId, input);
    s.o.state.settle(channelId);
  } catch (e) {
    const lost = channelLostError(e);
    if (lost) {
      // Not a gap to retry: the account is out of this channel. One request, then never again.
      t.drop(channelId);
      s.o.onChannelLost?.(channelId, lost);
      return;
    }
    const name = rpcName(e);
    if (name !== undefined && STATE_RESET.has(name)) {
      try {
        await resetChannel(s, channelId, name);
        s.o.state.settle(channelId);
        return;
      } catch (again) {
        t.failSync(channelId, s.retryAt(again));
        throw again;
      }
    }
    t.failSync(channelId, s.retryAt(e));
    throw e;
  }
}

async function syncChannel(s: CatchUpSession, channelId: string, input: Api.InputChannel): Promise<void> {
  const t = s.o.tracker;
  let pts = t.localPts(channelId);
  if (pts === undefined) {
    // No state (never followed, or lost): its newest messages, then followed from their pts.
    const top = await history(s, channelId, s.o.highestId(channelId));
    t.endSync(channelId, top);
    return;
  }
  for (;;) {
    const res: Api.updates.TypeChannelDifference = await s.invoke(
      new Api.updates.GetChannelDifference({
        channel: input,
        filter: new Api.ChannelMessagesFilterEmpty(),
        pts,
        limit: CHANNEL_DIFFERENCE_LIMIT,
      }),
    );
    s.o.onChannelFetched?.(channelId, res.timeout ?? undefined);
    if (res instanceof Api.updates.ChannelDifferenceEmpty) {
      t.endSync(channelId, res.pts);
      return;
    }
    if (res instanceof Api.updates.ChannelDifferenceTooLong) {
      const top = await tooLong(s, channelId, res);
      const dialogPts = res.dialog instanceof Api.Dialog ? res.dialog.pts : undefined;
      t.endSync(channelId, dialogPts ?? top);
      return;
    }
    await s.feedAll(res.newMessages, res.users, res.chats);
    s.o.onOtherUpdates?.(res.otherUpdates);
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
async function tooLong(
  s: CatchUpSession,
  channelId: string,
  res: Api.updates.ChannelDifferenceTooLong,
): Promise<number | undefined> {
  const highest = s.o.highestId(channelId) ?? 0;
  const real = res.messages.filter(
    (m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty),
  );
  await s.feedAll(
    real.filter((m) => m.id > highest),
    res.users,
    res.chats,
  );
  let oldest: Api.Message | Api.MessageService | undefined;
  for (const m of real) if (!oldest || m.id < oldest.id) oldest = m;
  if (!oldest || oldest.id <= highest + 1) return undefined;
  if (oldest.date * 1000 < s.telegramNow() - s.maxAnswerAgeMs) return undefined;
  return history(s, channelId, highest, { offsetId: oldest.id, pages: 1 });
}

/**
 * The server cannot start from the channel's stored pts: its newest messages (one history
 * page, above what is stored), and the channel followed from that answer's pts — the `pts` of
 * `messages.channelMessages`, the channel's event count when the answer was made. The gap is
 * logged.
 */
async function resetChannel(s: CatchUpSession, channelId: string, error: string): Promise<void> {
  const from = s.o.tracker.localPts(channelId);
  const pts = await history(s, channelId, s.o.highestId(channelId), { pages: 1 });
  if (pts === undefined) throw new Error(`no channel pts in the history of ${channelId}`);
  s.o.tracker.reset(channelId, pts);
  s.o.logger.warn(
    { component: "catch-up", chatId: channelId, rpcError: error, fromPts: from, toPts: pts },
    `${error} on getChannelDifference: ${channelId} is followed again from its newest messages (pts ${from ?? "?"} → ${pts}); older updates in between are not fetched`,
  );
}
