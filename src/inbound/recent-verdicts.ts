/**
 * What smart and talkative groups decided about recent chatter that got no addressing call — the
 * prefilter's rule, a hold by the owner's switches, or its age — kept in memory only, for the
 * operator console's "why". Bounded to the newest {@link RECENT_VERDICTS} per persona (a Map in
 * insertion order, the oldest dropped), so a busy persona holds well under a megabyte; lost on a
 * restart (the console then says what it can derive). No database write: chatter keeps paying
 * one parse and one insert.
 */
import type { SkipReason } from "./addressing-prefilter";

export type ChatterVerdict = SkipReason | "held" | "too-old";

const RECENT_VERDICTS = 5_000;

export class RecentVerdicts {
  private readonly byMessage = new Map<string, ChatterVerdict>();

  note(chatId: string, messageId: number, verdict: ChatterVerdict): void {
    const key = `${chatId}:${messageId}`;
    this.byMessage.set(key, verdict);
    if (this.byMessage.size > RECENT_VERDICTS) {
      const oldest = this.byMessage.keys().next().value;
      if (oldest !== undefined) this.byMessage.delete(oldest);
    }
  }

  get(chatId: string, messageId: number): ChatterVerdict | undefined {
    return this.byMessage.get(`${chatId}:${messageId}`);
  }
}
