/**
 * The sandbox's clock: the wall clock, which `/advance` moves forward. Its time is the machine's
 * plus an offset; its timers are real timers (so the persona's waits, typing and ticks run in
 * real time as ever) that it also keeps, by due time, so `advance(ms)` can fire every one that
 * falls due on the way in order — letting what each one started settle first (the runtime's
 * scheduler going idle: a plan, its typing, its sends) — and leave the clock `ms` later. The
 * emulated Telegram, the persona's runtime and the console all read this one clock, so a message
 * posted after `/advance 9h` is dated nine hours later everywhere, and a reminder due in between
 * has gone out by then. Time only moves forward.
 */
import type { Clock } from "../base/types";

interface Pending {
  readonly at: number;
  readonly fn: () => void;
  readonly handle: NodeJS.Timeout;
}

export class SandboxClock implements Clock {
  private offset = 0;
  private readonly timers = new Map<number, Pending>();
  private nextId = 1;
  /** Awaited after every timer `advance` fires (the sandbox sets it to "the scheduler is idle"). */
  settle: () => Promise<void> = async () => {};

  now(): number {
    return Date.now() + this.offset;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    const wait = Math.max(0, ms);
    const handle = setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, wait);
    // As the system clock's: a pending timer never keeps a finished process alive.
    handle.unref();
    this.timers.set(id, { at: this.now() + wait, fn, handle });
    return id;
  }

  clearTimeout(handle: unknown): void {
    const t = this.timers.get(handle as number);
    if (!t) return;
    clearTimeout(t.handle);
    this.timers.delete(handle as number);
  }

  /** Before anything runs (no timer set yet): start the clock at `ms`, when that is ahead. */
  startAt(ms: number): void {
    if (this.timers.size > 0) throw new Error("the sandbox clock can only be set ahead before anything runs");
    this.offset = Math.max(this.offset, ms - Date.now());
  }

  /** Move time forward by `ms`, firing the timers due on the way in time order; resolves when done. */
  async advance(ms: number): Promise<{ readonly fired: number }> {
    const end = this.now() + Math.max(0, ms);
    let fired = 0;
    await this.flush();
    for (;;) {
      let next: [number, Pending] | undefined;
      for (const e of this.timers) if (e[1].at <= end && (!next || e[1].at < next[1].at)) next = e;
      if (!next) break;
      const [id, t] = next;
      clearTimeout(t.handle);
      this.timers.delete(id);
      this.offset = Math.max(this.offset, t.at - Date.now());
      t.fn();
      fired++;
      await this.flush();
    }
    this.offset = Math.max(this.offset, end - Date.now());
    await this.flush();
    return { fired };
  }

  private async flush(): Promise<void> {
    for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
    await this.settle();
  }
}
