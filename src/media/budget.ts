/**
 * At most `perMinute` AI descriptions (each: one download and one Gemini call) in any sliding
 * minute, per persona. Clock-driven, so tests run on a FakeClock.
 */
import type { Clock } from "../base/types";

export const DEFAULT_MEDIA_BUDGET_PER_MINUTE = 8;
const WINDOW_MS = 60_000;

export class MediaBudget {
  private readonly taken: number[] = [];

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  private prune(now: number): void {
    while (this.taken.length > 0 && this.taken[0]! <= now - WINDOW_MS) this.taken.shift();
  }

  /** Spend one unit now if the last minute left one. */
  tryTake(): boolean {
    const now = this.clock.now();
    this.prune(now);
    if (this.taken.length >= this.perMinute) return false;
    this.taken.push(now);
    return true;
  }

  /** When the next unit frees up (now, if one is free). */
  nextFreeAt(): number {
    const now = this.clock.now();
    this.prune(now);
    if (this.taken.length < this.perMinute) return now;
    return this.taken[0]! + WINDOW_MS;
  }
}
