/**
 * Telegram's time, as opposed to the local clock. Message dates are Telegram's; judging their age
 * by a local clock that is wrong (set 2 h ahead, or jumped back by NTP) refuses every message as
 * "120 min old", or answers hours-old ones. So the time Telegram states — the `date` of
 * `updates.getState` (the connection watchdog's probe, the authorization check at connect) and
 * of a difference (the catch-up) — is kept with the monotonic clock's reading at that moment,
 * and Telegram's time now is that date moved on by the monotonic clock: a later jump of the wall
 * clock does not touch it. A message's date is a lower bound too (Telegram dated it; it cannot
 * be later than Telegram's now), so a local clock that is behind is noticed at the first one.
 *
 * When the local clock and Telegram's differ by more than a minute: one warning (how far, which
 * way, what to do); one line when they agree again. Until Telegram has stated a time, the local
 * clock stands for it.
 */
import type { Logger } from "pino";
import { formatDuration } from "../../base/duration";
import type { Clock } from "../../base/types";

/** The local clock may be this far off before it is worth a warning. */
const WARN_AFTER_MS = 60_000;
/** …and is in step again within this (hysteresis: one line each way, not a flicker). */
const IN_STEP_MS = 30_000;

export class TelegramTime {
  /** Telegram's time (ms) at the monotonic reading `mono`. */
  private told: { readonly at: number; readonly mono: number } | undefined;
  /** The offset (Telegram - local, ms) last warned about. */
  private warned: number | undefined;

  constructor(
    private readonly o: {
      readonly clock: Clock;
      readonly logger: Logger;
    },
  ) {}

  /** Telegram's time now (ms since the epoch); the local clock's until Telegram has stated one. */
  now(): number {
    const local = this.o.clock.now();
    if (!this.told) return local;
    const t = this.told.at + (this.mono() - this.told.mono);
    this.check(t - local);
    return t;
  }

  /**
   * Telegram stated its time: `unixSec`, a date of getState or of a difference (whole seconds:
   * the middle of that second is taken).
   */
  stated(unixSec: number): void {
    if (!Number.isFinite(unixSec) || unixSec <= 0) return;
    this.told = { at: unixSec * 1000 + 500, mono: this.mono() };
    this.check(this.told.at - this.o.clock.now());
  }

  /** A message Telegram dated `dateMs` arrived: Telegram's time is at least that. */
  dated(dateMs: number): void {
    if (dateMs > this.now()) this.stated(Math.floor(dateMs / 1000));
  }

  private mono(): number {
    return this.o.clock.monotonic?.() ?? this.o.clock.now();
  }

  private check(offset: number): void {
    const off = Math.abs(offset);
    if (this.warned !== undefined && off <= IN_STEP_MS) {
      this.warned = undefined;
      this.o.logger.info(
        { component: "runtime", offsetMs: Math.round(offset) },
        "the local clock agrees with Telegram's again",
      );
      return;
    }
    if (off <= WARN_AFTER_MS) return;
    // Told already (give or take a minute).
    if (this.warned !== undefined && Math.abs(offset - this.warned) <= WARN_AFTER_MS) return;
    this.warned = offset;
    const way = offset < 0 ? "ahead of" : "behind";
    this.o.logger.warn(
      {
        component: "runtime",
        offsetMs: Math.round(offset),
        localTime: new Date(this.o.clock.now()).toISOString(),
      },
      `the local clock is ${formatDuration(Math.round(off / 1000) * 1000)} ${way} Telegram's; message ages (the answer-age limit) are judged by Telegram's time. Set the system clock right (e.g. timedatectl set-ntp true)`,
    );
  }
}
