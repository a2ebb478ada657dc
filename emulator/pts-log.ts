/**
 * Telegram's update sequence numbers, server side: one pts sequence per account (its DMs and
 * basic groups, reads…) and one per channel. Every event that moves a pts is logged here, so
 * `updates.getDifference` / `updates.getChannelDifference` can replay what a client missed.
 */
import type { Api } from "telegram";
import type { EmuUser } from "./types";

/**
 * One pts-moving event. `pts` is the sequence value *after* the event (what the update carries),
 * so the event covers `pts - ptsCount + 1 … pts`. A new message carries `msg` (the store's
 * message, `M`); anything else (reads, edits, deletions) builds its update per viewer with `build`.
 */
export interface PtsEvent<M> {
  readonly pts: number;
  readonly ptsCount: number;
  /** Unix seconds. */
  readonly date: number;
  readonly msg?: M;
  readonly build?: (viewer: EmuUser, pts: number, ptsCount: number) => Api.TypeUpdate;
}

/** A pts sequence with its event log. */
export class PtsLog<M> {
  /** Current pts (Telegram starts an account and a channel above 0; we start at 1). */
  pts = 1;
  /** Unix seconds of the latest event (0 before the first). */
  date = 0;
  private readonly events: PtsEvent<M>[] = [];

  /** Advances the sequence by `ptsCount` and logs the event; returns it. */
  push(ptsCount: number, date: number, body: Pick<PtsEvent<M>, "msg" | "build">): PtsEvent<M> {
    this.pts += ptsCount;
    this.date = date;
    const ev: PtsEvent<M> = { pts: this.pts, ptsCount, date, ...body };
    this.events.push(ev);
    return ev;
  }

  /** Events a client at `pts` has not seen (those ending after it), oldest first, at most `limit`. */
  after(pts: number, limit: number): PtsEvent<M>[] {
    // Binary search for the first event whose pts is above the client's.
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.events[mid]?.pts ?? 0) > pts) hi = mid;
      else lo = mid + 1;
    }
    return this.events.slice(lo, lo + limit);
  }

  /** How many pts units a client at `pts` is behind. */
  gap(pts: number): number {
    return Math.max(0, this.pts - pts);
  }
}
