/**
 * The supergroups the persona is active in — where it was addressed, where it spoke, and smart
 * or talkative groups with recent messages — most recent first: the chats it "has open", whose
 * differences the channel watch polls (telegram/inbound/channel-watch.ts), since Telegram does
 * not push big groups in real time. Memory only, seeded at the start from the task table (the
 * chats with a `received`, `send` or `sticker` task in the last hour).
 */
import type { Clock } from "../base/types";

/** Active for this long after the last sign of it. */
export const ACTIVE_WINDOW_MS = 3_600_000;

export class ActiveChats {
  private readonly at = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly windowMs = ACTIVE_WINDOW_MS,
  ) {}

  /** A sign of activity in `chatId` now (or at `at`); anything but a supergroup is ignored. */
  note(chatId: string, at = this.clock.now()): void {
    if (!chatId.startsWith("-100")) return;
    if ((this.at.get(chatId) ?? 0) < at) this.at.set(chatId, at);
  }

  /** The supergroups active within the window, most recent first. */
  list(): string[] {
    const since = this.clock.now() - this.windowMs;
    for (const [c, at] of this.at) if (at < since) this.at.delete(c);
    return [...this.at].sort((a, b) => b[1] - a[1]).map(([c]) => c);
  }
}
