/**
 * Humane batching: when an addressed message's answer is planned.
 *
 * A person who writes three messages in a row is answered once, for all three: planning waits
 * until the graph (a chat, or a forum topic) has had no new addressed message for the quiet
 * window, and — while Telegram reports an author of the burst typing there — a little longer.
 * Both are bounded by one deadline, `planBy`, counted from the burst's first message, so nobody
 * can hold the persona's answer back by typing forever.
 */

/** How much longer than one quiet window a burst may wait, at most (joins and typing together). */
const MAX_EXTRA_WAIT_MS = 15_000;

/** Who is typing where, as Telegram last reported it (see telegram/typing-watch.ts). */
export interface TypingSource {
  /** Until when `userId` is shown typing in the chat (and forum topic); 0 or past: not typing. */
  typingUntil(chatId: string, topicId: number | undefined, userId: string): number;
}

/** The latest time a burst that starts now may be planned (quiet window + the bounded extra wait). */
export function planDeadline(now: number, quietMs: number): number {
  return now + quietMs + MAX_EXTRA_WAIT_MS;
}

/** When a new burst plans if nothing else arrives: after the quiet window, or the next tick with none. */
export function firstPlanTime(now: number, quietMs: number, tickMs: number): number {
  return now + (quietMs > 0 ? quietMs : tickMs);
}

/**
 * A message joined a burst that has not started planning: the quiet window starts again from
 * now, but never past the burst's deadline, and never earlier than the task already waits
 * (e.g. parked behind an LLM limit).
 */
export function joinedPlanTime(o: {
  notBefore: number;
  now: number;
  quietMs: number;
  planBy?: number;
}): number {
  if (o.quietMs <= 0) return o.notBefore;
  const quietEnd = o.now + o.quietMs;
  return Math.max(o.notBefore, o.planBy === undefined ? quietEnd : Math.min(quietEnd, o.planBy));
}

/**
 * A burst that is due holds while one of its authors is typing in its graph — until the typing
 * status lapses or is cancelled, at most until `planBy`. Returns the time to look again, or 0.
 */
export function typingHold(
  typing: TypingSource | undefined,
  o: { chatId: string; topicId?: number; authors?: readonly string[]; planBy?: number; now: number },
): number {
  if (!typing || !o.authors?.length || o.planBy === undefined || o.now >= o.planBy) return 0;
  let until = 0;
  for (const a of o.authors) until = Math.max(until, typing.typingUntil(o.chatId, o.topicId, a));
  return until > o.now ? Math.min(until, o.planBy) : 0;
}
