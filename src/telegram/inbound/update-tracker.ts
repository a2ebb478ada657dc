import type { Logger } from "pino";
import { ACCOUNT_BOX, type UpdateStateStore } from "../../store/update-state";
import type { Clock } from "../../base/types";

/** How long a gap may stay open before the difference is fetched (Telegram's advice: ~0.5 s). */
const GAP_WAIT_MS = 500;
/** After a failed sync (or a message that could not be stored) the difference is retried: first after this… */
const RETRY_FIRST_MS = 1_000;
/** …doubling up to this. */
const RETRY_MAX_MS = 60_000;

interface Held {
  readonly pts: number;
  readonly ptsCount: number;
  readonly date: number;
  readonly run: (ticket: Ticket | undefined) => void;
}

/**
 * Handed to an applied update; `done()` once its messages are written — in the open group commit
 * is enough: the pts it persists joins that commit, after them, so both reach the file or
 * neither does (a rolled-back commit makes the runtime fall back to the file's pts, see
 * `resync`) — and `failed()` if they could not be. The first call counts.
 */
export interface Ticket {
  done(): void;
  failed(): void;
}

class Box {
  /** Highest pts applied in order (in memory); undefined until the box's state is known. */
  local: number | undefined;
  /** `pts - pts_count` of applied updates whose messages are not written yet. */
  readonly inFlight: number[] = [];
  /** Updates waiting: behind a gap, or while the box is being synced. */
  held: Held[] = [];
  syncing = false;
  /** The server asked for a difference while one was running: fetch once more after it. */
  again = false;
  timer: unknown;
  date = 0;
  /**
   * A gap that is not filled yet (a failed sync, or a message that could not be stored): nothing
   * above this pts is persisted and the next difference starts here, until a sync covers it.
   */
  gapFrom: number | undefined;
  /** The account box's pts taken from a live update because getState failed: not persisted. */
  unconfirmed = false;
  retryTimer: unknown;
  /** When the retry timer fires (the runtime clock's ms). */
  retryAt = 0;
  retryMs = 0;
  /** When an update of this box last came live or a sync of it last ended (the runtime clock's ms). */
  heardAt: number | undefined;
  /** A sync failed and none has succeeded since: the retry fetches it even without a known gap. */
  wanted = false;
  /** Not fetched before this (the failure named when: a flood wait's end, the server's "later"). */
  holdUntil = 0;
  constructor(local: number | undefined) {
    this.local = local;
  }
  /** Everything at or below this pts is written. */
  durable(): number | undefined {
    if (this.local === undefined || this.unconfirmed) return undefined;
    return Math.min(this.local, this.gapFrom ?? this.local, ...this.inFlight);
  }
}

export interface UpdateTrackerOptions {
  readonly state: UpdateStateStore;
  readonly clock: Clock;
  readonly logger: Logger;
  /** A gap stayed open `GAP_WAIT_MS`, or the server said a channel has one: fetch its difference. */
  readonly onGap: (box: string) => void;
  readonly gapWaitMs?: number;
}

/**
 * Telegram's pts bookkeeping, per box (the account's common box and one per channel), as
 * Telegram's protocol describes it: an update whose `pts - pts_count` is the box's pts applies;
 * one at or below it is old (already seen — handled again only for dedupe's sake, it moves
 * nothing); one above it leaves a gap: it is held until the gap fills or, after GAP_WAIT_MS,
 * the difference is fetched. While a box is being synced, its live updates are held and run
 * after the sync, in pts order.
 *
 * The persisted pts is the highest pts below which every applied update's messages are written:
 * it is written in the same group commit as those messages, after them, so a crash never skips
 * a message that was not stored.
 */
export class UpdateTracker {
  private readonly boxes = new Map<string, Box>();
  private readonly gapWaitMs: number;

  constructor(private readonly o: UpdateTrackerOptions) {
    this.gapWaitMs = o.gapWaitMs ?? GAP_WAIT_MS;
  }

  private box(key: string): Box {
    let b = this.boxes.get(key);
    if (!b) {
      const stored = key === ACCOUNT_BOX ? this.o.state.account()?.pts : this.o.state.channelPts(key);
      b = new Box(stored);
      b.date = key === ACCOUNT_BOX ? (this.o.state.account()?.date ?? 0) : 0;
      this.boxes.set(key, b);
    }
    return b;
  }

  /**
   * An update with `pts`/`pts_count` entered. `run` is called now or later (in pts order) with a
   * ticket when the update applies, or without one when it is old.
   */
  enter(
    key: string,
    pts: number,
    ptsCount: number,
    date: number,
    run: (ticket: Ticket | undefined) => void,
  ): void {
    const b = this.box(key);
    b.heardAt = this.o.clock.now();
    if (b.syncing) {
      b.held.push({ pts, ptsCount, date, run });
      return;
    }
    if (b.local === undefined) {
      // A channel never seen before: its first update sets the baseline. The account box gets
      // its baseline from getState; if that failed, the first live update sets it too (kept in
      // memory only, so a restart still asks getState) and getState is retried.
      b.local = pts - ptsCount;
      if (key === ACCOUNT_BOX) {
        b.unconfirmed = true;
        this.scheduleRetry(key, b);
      }
    }
    this.offer(key, b, { pts, ptsCount, date, run });
    this.drain(key, b);
  }

  /** True if the update was applied or found old; false if it waits behind a gap. */
  private offer(key: string, b: Box, h: Held): boolean {
    const local = b.local!;
    if (h.pts <= local) {
      h.run(undefined);
      return true;
    }
    if (h.pts - h.ptsCount === local) {
      b.local = h.pts;
      b.date = Math.max(b.date, h.date);
      const before = local;
      b.inFlight.push(before);
      let finished = false;
      h.run({
        done: () => {
          if (finished) return;
          finished = true;
          b.inFlight.splice(b.inFlight.indexOf(before), 1);
          this.persist(key, b);
        },
        failed: () => {
          // Not stored: the box must not move past it; fetch it again with the difference.
          if (finished) return;
          finished = true;
          b.inFlight.splice(b.inFlight.indexOf(before), 1);
          this.markGap(key, b, before);
        },
      });
      return true;
    }
    b.held.push(h);
    if (b.timer === undefined) {
      b.timer = this.o.clock.setTimeout(() => {
        b.timer = undefined;
        if (b.held.length > 0 && !b.syncing) {
          this.o.logger.debug(
            { component: "updates", box: key || "account", pts: b.local },
            "update gap; fetching the difference",
          );
          this.o.onGap(key);
        }
      }, this.gapWaitMs);
    }
    return false;
  }

  /** Run held updates that now apply (or are old), in pts order. */
  private drain(key: string, b: Box): void {
    let progress = true;
    while (progress && b.held.length > 0 && !b.syncing) {
      progress = false;
      b.held.sort((x, y) => x.pts - y.pts);
      const next = b.held[0]!;
      if (next.pts <= b.local! || next.pts - next.ptsCount === b.local) {
        b.held.shift();
        this.offer(key, b, next);
        progress = true;
      }
    }
    if (b.held.length === 0 && b.timer !== undefined) {
      this.o.clock.clearTimeout(b.timer);
      b.timer = undefined;
    }
  }

  /**
   * The server said this box has a gap — `updateChannelTooLong` for a channel, `updatesTooLong`
   * for the account's box: fetch its difference now (once more after a sync that is running). A
   * channel without a known state is read from its newest messages (catch-up.ts): the pts
   * `updateChannelTooLong` carries is the server's (TDLib fetches when it is above its own), not a
   * start point.
   */
  gap(key: string): void {
    const b = this.box(key);
    if (b.syncing) {
      b.again = true;
      return;
    }
    this.o.onGap(key);
  }

  /**
   * A sync step reached `pts` (a difference slice whose messages are written): persist it, keep
   * holding live updates.
   */
  syncedTo(key: string, pts: number, extra?: { qts: number; date: number; seq: number }): void {
    const b = this.box(key);
    if (b.gapFrom !== undefined)
      b.gapFrom = b.local !== undefined && pts < b.local ? Math.max(b.gapFrom, pts) : undefined;
    if (b.local === undefined || pts > b.local) b.local = pts;
    if (extra) {
      b.date = Math.max(b.date, extra.date);
      this.extras.set(key, extra);
    }
    this.persist(key, b);
  }

  /** Hold the box's live updates until `endSync` (a difference is being fetched for it). */
  beginSync(key: string): void {
    this.box(key).syncing = true;
  }

  /**
   * The sync is over (its messages are written): `pts` (if the answer carried one) becomes the
   * box's state, then what was held runs. `extra` carries the account box's qts/date/seq from
   * the server's state.
   */
  endSync(key: string, pts: number | undefined, extra?: { qts: number; date: number; seq: number }): void {
    const b = this.box(key);
    b.syncing = false;
    b.wanted = false;
    b.heardAt = this.o.clock.now();
    if (pts !== undefined) {
      // A final difference covers everything up to the server's pts, the gap included.
      b.gapFrom = undefined;
      b.holdUntil = 0;
      if (b.retryTimer !== undefined) this.o.clock.clearTimeout(b.retryTimer);
      b.retryTimer = undefined;
      if (key !== ACCOUNT_BOX || extra) b.unconfirmed = false;
      b.retryMs = 0;
      if (b.local === undefined || pts > b.local) b.local = pts;
    }
    if (extra) {
      b.date = Math.max(b.date, extra.date);
      this.extras.set(key, extra);
    }
    if (b.local !== undefined) this.persist(key, b);
    if (b.local === undefined && b.held.length > 0 && key !== ACCOUNT_BOX)
      b.local = Math.min(...b.held.map((h) => h.pts - h.ptsCount));
    if (b.local !== undefined) this.drain(key, b);
    if (b.again) {
      b.again = false;
      this.o.onGap(key);
    }
  }

  /**
   * The server's state replaces the box's: the stored pts is not one Telegram can start a
   * difference from (PERSISTENT_TIMESTAMP_INVALID / _EMPTY). `pts` becomes the box's — lower or
   * higher —, a remembered gap is forgotten, and what was held runs (updates at or below `pts` as
   * old ones).
   */
  reset(key: string, pts: number, extra?: { qts: number; date: number; seq: number }): void {
    const b = this.box(key);
    b.syncing = false;
    b.wanted = false;
    b.holdUntil = 0;
    b.gapFrom = undefined;
    b.unconfirmed = false;
    b.retryMs = 0;
    b.heardAt = this.o.clock.now();
    if (b.retryTimer !== undefined) this.o.clock.clearTimeout(b.retryTimer);
    b.retryTimer = undefined;
    b.local = pts;
    if (extra) {
      b.date = Math.max(b.date, extra.date);
      this.extras.set(key, extra);
    }
    this.persist(key, b);
    this.drain(key, b);
    if (b.again) {
      b.again = false;
      this.o.onGap(key);
    }
  }

  /**
   * The sync failed. Live updates must not wait for it: what is held runs (the box goes on from
   * the held updates), but the gap is remembered — nothing above it is persisted and the
   * difference is retried from it (capped backoff, or at `retryAt` when the caller knows when:
   * a flood wait's end, a server that asked to come back later), so the missed messages still
   * come, after a restart too.
   */
  failSync(key: string, retryAt?: number): void {
    const b = this.box(key);
    b.syncing = false;
    b.wanted = true;
    if (retryAt !== undefined) {
      b.holdUntil = Math.max(b.holdUntil, retryAt);
      this.retryAt(key, b, retryAt);
    }
    if (b.local === undefined && b.held.length > 0) {
      b.local = Math.min(...b.held.map((h) => h.pts - h.ptsCount));
      if (key === ACCOUNT_BOX) b.unconfirmed = true;
    }
    if (b.local === undefined) {
      this.scheduleRetry(key, b);
      return;
    }
    this.markGap(key, b, b.local);
    this.drain(key, b);
    if (b.held.length > 0) {
      this.o.logger.warn(
        { component: "updates", box: key || "account", from: b.gapFrom },
        "update gap could not be filled yet; going on, will retry",
      );
      b.local = Math.min(...b.held.map((h) => h.pts - h.ptsCount));
      this.drain(key, b);
    }
  }

  /** Remember that nothing above `from` may be persisted until a sync covers it; retry the sync. */
  private markGap(key: string, b: Box, from: number): void {
    b.gapFrom = Math.min(b.gapFrom ?? from, from);
    this.scheduleRetry(key, b);
  }

  /** The next retry of the box's difference is at `at` (not earlier: a timer due sooner is moved). */
  private retryAt(key: string, b: Box, at: number): void {
    if (b.retryTimer !== undefined) {
      if (b.retryAt >= at) return;
      this.o.clock.clearTimeout(b.retryTimer);
      b.retryTimer = undefined;
    }
    this.armRetry(key, b, Math.max(0, at - this.o.clock.now()));
  }

  private scheduleRetry(key: string, b: Box): void {
    if (b.retryTimer !== undefined) return;
    b.retryMs = b.retryMs === 0 ? RETRY_FIRST_MS : Math.min(b.retryMs * 2, RETRY_MAX_MS);
    this.armRetry(key, b, b.retryMs);
  }

  private armRetry(key: string, b: Box, ms: number): void {
    b.retryAt = this.o.clock.now() + ms;
    b.retryTimer = this.o.clock.setTimeout(() => {
      b.retryTimer = undefined;
      if (b.syncing) return;
      if (
        b.gapFrom !== undefined ||
        b.unconfirmed ||
        b.wanted ||
        (key === ACCOUNT_BOX && b.local === undefined)
      ) {
        this.o.logger.debug(
          { component: "updates", box: key || "account", from: b.gapFrom },
          "retrying the difference",
        );
        this.o.onGap(key);
      }
    }, ms);
  }

  /**
   * Forget a channel's box (the account is no longer in it): its stored pts is deleted, its
   * timers stop (no retry), updates held for it run as old ones. A later update of the channel
   * (it was joined again) starts a fresh box.
   */
  drop(key: string): void {
    if (key === ACCOUNT_BOX) return;
    const b = this.boxes.get(key);
    this.boxes.delete(key);
    this.extras.delete(key);
    this.o.state.dropChannel(key);
    if (!b) return;
    if (b.timer !== undefined) this.o.clock.clearTimeout(b.timer);
    if (b.retryTimer !== undefined) this.o.clock.clearTimeout(b.retryTimer);
    b.timer = b.retryTimer = undefined;
    for (const h of b.held.splice(0)) h.run(undefined);
  }

  /** Boxes that are known (stored or seen), for a catch-up after a reconnect. */
  knownChannels(): string[] {
    return [
      ...new Set([...this.o.state.channels(), ...[...this.boxes.keys()].filter((k) => k !== ACCOUNT_BOX)]),
    ];
  }

  /**
   * When the box was last heard from — a live update, or a sync that ended — in this process
   * (undefined: not since the start).
   */
  lastHeard(key: string): number | undefined {
    return this.boxes.get(key)?.heardAt;
  }

  /**
   * Until when the box's difference must not be asked (a failure named when: a flood wait's end,
   * PERSISTENT_TIMESTAMP_OUTDATED's "later"); 0 when it may be asked now.
   */
  heldUntil(key: string): number {
    const until = this.boxes.get(key)?.holdUntil ?? 0;
    return until > this.o.clock.now() ? until : 0;
  }

  /** True while the box's difference is being fetched or waits to be retried after a failure. */
  pending(key: string): boolean {
    const b = this.boxes.get(key);
    return b !== undefined && (b.syncing || b.retryTimer !== undefined);
  }

  /** Where a difference of the box starts: an unfilled gap, else the in-memory (or stored) pts. */
  localPts(key: string): number | undefined {
    const b = this.box(key);
    if (b.unconfirmed) return undefined;
    return b.gapFrom ?? b.local;
  }

  private readonly extras = new Map<string, { qts: number; date: number; seq: number }>();

  private persist(key: string, b: Box): void {
    const pts = b.durable();
    if (pts === undefined) return;
    if (key === ACCOUNT_BOX) {
      const old = this.o.state.account();
      const extra = this.extras.get(key);
      this.o.state.setAccount({
        pts,
        qts: extra?.qts ?? old?.qts ?? 0,
        date: Math.max(b.date, old?.date ?? 0),
        seq: extra?.seq ?? old?.seq ?? 0,
      });
    } else {
      this.o.state.setChannel(key, pts);
    }
  }

  /**
   * A group commit failed and was rolled back: updates reported written may not be. Every box
   * falls back to what the file holds (`stored`): nothing above it is persisted until a
   * difference from there has been fetched again — which brings back whatever was lost.
   */
  resync(stored: (key: string) => number | undefined): void {
    for (const [key, b] of this.boxes) {
      const pts = stored(key);
      if (pts === undefined || b.local === undefined || pts >= b.local) continue;
      this.markGap(key, b, pts);
    }
  }

  /** Drop timers (the runtime stops). */
  close(): void {
    for (const b of this.boxes.values()) {
      if (b.timer !== undefined) this.o.clock.clearTimeout(b.timer);
      if (b.retryTimer !== undefined) this.o.clock.clearTimeout(b.retryTimer);
      b.timer = undefined;
      b.retryTimer = undefined;
    }
  }
}
