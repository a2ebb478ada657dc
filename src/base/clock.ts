import type { Clock } from "./types";

/** The wall clock, for production. */
export const systemClock: Clock = {
  now: () => Date.now(),
  // Node's timers run on this clock too: setting the system clock moves neither.
  monotonic: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending tick must never keep a finished process alive.
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly fn: () => void;
}

/**
 * A clock whose time moves only when a test (or the benchmark) says so. `advance` fires due
 * timers in time order; after each one it lets real asynchronous work settle (promises,
 * setImmediate-based fakes, and whatever `settle` waits for — e.g. "no task is running"), so
 * what happens at fake time T is finished before time moves past T.
 */
export class FakeClock implements Clock {
  private current: number;
  /** The monotonic clock: moved by `advance`, never by `jump`. */
  private elapsed = 0;
  private timers: FakeTimer[] = [];
  private nextId = 1;
  /** Awaited after every fired timer; the runtime sets it to "scheduler idle". */
  settle: () => Promise<void> = async () => {};

  constructor(start = Date.UTC(2026, 10, 22, 12, 0, 0)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  monotonic(): number {
    return this.elapsed;
  }

  /**
   * The wall clock is set `ms` forward (or back, negative) at once, as an operator or NTP sets a
   * system clock: no time passes, no timer fires, and pending timers keep their remaining delays
   * (node's timers run on the monotonic clock).
   */
  jump(ms: number): void {
    this.current += ms;
    this.timers = this.timers.map((t) => ({ ...t, at: t.at + ms }));
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Move time forward by `ms`, firing every timer that falls due on the way. */
  async advance(ms: number): Promise<void> {
    const end = this.current + ms;
    await this.flush();
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > end) break;
      this.timers = this.timers.filter((t) => t !== next);
      const at = Math.max(this.current, next.at);
      this.elapsed += at - this.current;
      this.current = at;
      next.fn();
      await this.flush();
    }
    this.elapsed += end - this.current;
    this.current = end;
    await this.flush();
  }

  /** Let pending real asynchronous work finish without moving time. */
  async flush(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
    await this.settle();
  }

  private earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.timers)
      if (!best || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    return best;
  }
}
