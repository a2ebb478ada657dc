import { accountDifference } from "./account-difference";
import {
  CatchUpSession,
  HeldError,
  catchable,
  type CatchUpOptions,
  type CatchUpSummary,
} from "./catch-up-session";
import { channel, channels } from "./channel-difference";
import { dialogsLook } from "./newest-dialogs";

export { HeldError, catchable, type CatchUpOptions, type CatchUpSummary };

/** At most this many channels named by one difference are fetched in one catch-up. */
const MAX_NAMED = 1000;

/**
 * Catch-up by Telegram's book ("Working with updates": at start only `updates.getDifference`;
 * `getChannelDifference` is not called for every channel):
 *
 * - `updates.getDifference` from the stored account state until it is final (account-difference.ts);
 * - `updates.getChannelDifference` only for the channels that difference names
 *   (`updateChannelTooLong`), bounded in concurrency — a quiet supergroup costs nothing
 *   (channel-difference.ts);
 * - after a first start, one `messages.getDialogs` page (the newest dialogs): a supergroup there
 *   that is not followed (never seen, or its state lost) and was active lately, or a followed one
 *   whose pts is above ours, is fetched too (at most 10; newest-dialogs.ts).
 *
 * Gaps seen while running, channels silent for long and the big groups the persona is active in
 * are fetched one channel at a time (`channelOnly`, channel-watch.ts). A channel without stored
 * state is read with one `messages.getHistory` page and followed from the answer's pts; after
 * `channelDifferenceTooLong` the messages in the answer are used, and at most one more page is
 * read, only when those are still young enough to answer (history-backfill.ts).
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
  private readonly s: CatchUpSession;

  constructor(private readonly o: CatchUpOptions) {
    this.s = new CatchUpSession(o);
  }

  async run(): Promise<CatchUpSummary> {
    const s = this.s;
    const t0 = this.o.now();
    s.reset();
    const firstStart = this.o.state.account() === undefined;
    // Channels an earlier difference named and no fetch has reached yet (a restart during a flood
    // wait): fetched with the ones this difference names, as soon as their method may be called.
    const named = new Set<string>(this.o.state.owed());
    let accountError: unknown;
    try {
      await accountDifference(s, named);
    } catch (err) {
      // The channel part goes on: the channels named so far, and the dialogs' look below.
      accountError = err;
    }
    const list = [...named].filter((c) => s.catchable(c));
    if (list.length > MAX_NAMED)
      this.o.logger.warn(
        { component: "catch-up", channels: list.length, max: MAX_NAMED },
        "too many channels named; catching up the first ones only (the others at their next update)",
      );
    const chosen = list.slice(0, MAX_NAMED);
    this.o.onProgress?.(1, 1 + chosen.length, s.messages);
    await channels(s, chosen, (done) => this.o.onProgress?.(1 + done, 1 + chosen.length, s.messages));
    // A first start begins from now; later ones look at the newest dialogs.
    if (!firstStart) await dialogsLook(s, new Set(chosen));
    // A box Telegram asked to leave for later is not a failure: its retry is set.
    if (accountError !== undefined && !(accountError instanceof HeldError)) throw accountError;
    return { messages: s.messages, chats: s.chats.size, requests: s.requests, ms: this.o.now() - t0 };
  }

  /** Catch up one channel (a gap seen while running, a poll, a channel Telegram named live). */
  async channelOnly(channelId: string): Promise<void> {
    await channel(this.s, channelId);
  }

  /** Catch up the account's common box, then the channels its difference names. */
  async accountOnly(): Promise<void> {
    const named = new Set<string>();
    await accountDifference(this.s, named);
    await channels(
      this.s,
      [...named].filter((c) => this.s.catchable(c)),
      () => undefined,
    );
  }
}
