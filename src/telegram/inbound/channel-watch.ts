/**
 * The channels fetched besides those Telegram names (catch-up.ts) and those whose own gap opens
 * (update-tracker.ts):
 *
 * - **Big groups the persona is active in** are polled. Telegram does not push big supergroups
 *   in real time (a TDLib maintainer, tdlib/td#2695); its docs ("Subscribing to updates of
 *   channels/supergroups") ask user accounts to call `updates.getChannelDifference` for the chats
 *   they are viewing — at most 10 — again after the `timeout` the last answer named. Here the
 *   persona's "open" chats are the supergroups it is active in (runtime/active-chats.ts): the
 *   `pollMax` most recent are polled at the server's `timeout` after they were last heard from
 *   (a live update or a fetch), never faster than `minPollMs`.
 * - **Channels silent for long**: a followed channel nothing was heard from for `silentMs`
 *   (15 minutes, Telegram's "no updates for 15 minutes" and Telethon's per-channel deadline) is
 *   fetched, at most `silentPerMinute` in any minute, the longest silent first; after a start each
 *   channel's first deadline is spread over one more `silentMs`, so a start never polls them all.
 *
 * Each fetch runs through the catch-up chain (one at a time) and the read calls (bounded in
 * time); nothing is polled while getChannelDifference is paused by a flood wait, nor a channel
 * whose fetch is running or waits for its retry.
 */
import type { Logger } from "pino";
import type { Clock } from "../../base/types";
import type { UpdateTracker } from "./update-tracker";

/** Telegram's docs: poll at most 10 channels this way. */
const POLL_MAX = 10;
/** The poll interval before the server named one. */
const DEFAULT_POLL_MS = 30_000;
/** Never poll faster than this, whatever `timeout` says (the docs' fallback is 1 s). */
const MIN_POLL_MS = 5_000;
const SILENT_MS = 15 * 60_000;
const SILENT_PER_MINUTE = 6;
const TICK_MS = 5_000;

export interface ChannelWatchOptions {
  readonly clock: Clock;
  readonly tracker: UpdateTracker;
  /** The channels whose update state is kept (addressable supergroups with a pts). */
  readonly followed: () => readonly string[];
  /** The supergroups the persona is active in, most recent first. */
  readonly active: () => readonly string[];
  /** Fetch one channel's difference (the catch-up chain); settles when done, never rejects. */
  readonly fetch: (channelId: string) => Promise<void>;
  /** True while getChannelDifference is paused by a flood wait. */
  readonly paused: () => boolean;
  readonly logger: Logger;
  readonly pollMax?: number;
  readonly defaultPollMs?: number;
  readonly minPollMs?: number;
  readonly silentMs?: number;
  readonly silentPerMinute?: number;
  readonly tickMs?: number;
}

export class ChannelWatch {
  private timer: unknown;
  private stopped = true;
  private startedAt = 0;
  /** The server's poll interval per channel (its last `timeout`), ms. */
  private readonly intervals = new Map<string, number>();
  private readonly fetchedAt = new Map<string, number>();
  /** When the silent channels of the last minute were fetched (a sliding minute bounds them). */
  private silentPolls: number[] = [];

  constructor(private readonly o: ChannelWatchOptions) {}

  start(): void {
    this.stopped = false;
    this.startedAt = this.o.clock.now();
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** A channel's difference was answered (whoever asked), with the server's `timeout` in seconds. */
  fetched(channelId: string, timeoutSec: number | undefined): void {
    this.fetchedAt.set(channelId, this.o.clock.now());
    if (timeoutSec !== undefined && timeoutSec > 0)
      this.intervals.set(channelId, Math.max(this.o.minPollMs ?? MIN_POLL_MS, timeoutSec * 1000));
  }

  /**
   * The channels to fetch now: the active ones whose poll interval has passed, then silent ones
   * within the last minute's budget (which they use up).
   */
  due(): string[] {
    if (this.o.paused()) return [];
    const now = this.o.clock.now();
    const t = this.o.tracker;
    const out: string[] = [];
    const polled = new Set<string>();
    for (const c of this.o.active().slice(0, this.o.pollMax ?? POLL_MAX)) {
      polled.add(c);
      if (t.pending(c)) continue;
      const last = this.lastHeard(c);
      const every = this.intervals.get(c) ?? this.o.defaultPollMs ?? DEFAULT_POLL_MS;
      if (last === undefined || now - last >= every) out.push(c);
    }
    this.silentPolls = this.silentPolls.filter((at) => at > now - 60_000);
    const budget = (this.o.silentPerMinute ?? SILENT_PER_MINUTE) - this.silentPolls.length;
    if (budget <= 0) return out;
    const silentMs = this.o.silentMs ?? SILENT_MS;
    const silent: { c: string; since: number }[] = [];
    for (const c of this.o.followed()) {
      if (polled.has(c) || t.pending(c)) continue;
      // Not heard from since the start: as if heard at a moment spread over the first period.
      const since = this.lastHeard(c) ?? this.startedAt + (spread(c) % silentMs);
      if (now - since >= silentMs) silent.push({ c, since });
    }
    silent.sort((a, b) => a.since - b.since);
    const picked = silent.slice(0, budget).map((s) => s.c);
    this.silentPolls.push(...picked.map(() => now));
    return [...out, ...picked];
  }

  private lastHeard(c: string): number | undefined {
    const heard = this.o.tracker.lastHeard(c);
    const fetched = this.fetchedAt.get(c);
    if (heard === undefined) return fetched;
    return fetched === undefined ? heard : Math.max(heard, fetched);
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.o.clock.setTimeout(() => void this.tick(), this.o.tickMs ?? TICK_MS);
  }

  private async tick(): Promise<void> {
    this.timer = undefined;
    try {
      for (const c of this.due()) {
        if (this.stopped) break;
        await this.o.fetch(c);
      }
    } catch (err) {
      this.o.logger.warn({ component: "catch-up", err: String(err) }, "channel watch failed");
    } finally {
      this.arm();
    }
  }
}

/** A stable number per channel id (FNV-1a), to spread first deadlines. */
function spread(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
