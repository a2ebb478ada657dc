/**
 * Whether a plan's `schedule` may be set (life/intentions.ts `schedule`): the owner's switches
 * and the caps as they are now (policy/gate.ts `intention`; the plan may have waited), an asker
 * who went (recall-plans.ts), at most 90 days ahead, `# Intentions Per Chat` pending in the
 * chat, and the day's proactive calls with strangers' share (follow-up-shares.ts).
 */
import type { Persona } from "../config/persona";
import { formatLocal, zonedDayAt } from "../base/zoned-time";
import type { Gate } from "../policy/gate";
import type { IntentionStore, NewIntention } from "../store/intentions";
import type { DepartureStore } from "../store/departures";
import { strangersPart } from "./follow-up-shares";
import { askerGone } from "./recall-plans";

/** How far ahead an intention may be set. */
const MAX_AHEAD_MS = 90 * 86_400_000;

/** What the limits read. */
export interface ScheduleLimitSources {
  readonly store: Pick<IntentionStore, "countOpenIn" | "callsOn">;
  readonly persona: Pick<Persona, "timeZone" | "intentions">;
  readonly gate: Pick<Gate, "intention" | "isStrangerCall">;
  readonly departures?: Pick<DepartureStore, "goneSince">;
}

/** Why the intention may not be set now (told to the chat's next plan), or undefined: it may. */
export function scheduleRefusal(n: NewIntention, d: ScheduleLimitSources, now: number): string | undefined {
  const { perChat, perDay } = d.persona.intentions;
  const tz = d.persona.timeZone;
  const denied = d.gate.intention(n.chatId, n.forUser) ?? askerGone(d.departures, n);
  if (denied !== undefined) return denied;
  if (n.dueAt > now + MAX_AHEAD_MS) return "more than 90 days ahead";
  if (d.store.countOpenIn(n.chatId) >= perChat)
    return perChat === 0
      ? "this persona sets no intentions (# Intentions Per Chat is 0)"
      : `this chat already has ${perChat} pending intention${perChat === 1 ? "" : "s"}, the most it may have`;
  const from = zonedDayAt(n.dueAt, 0, 0, tz);
  const to = zonedDayAt(n.dueAt, 1, 0, tz);
  return strangersPart({
    calls: d.store.callsOn(from, to),
    n,
    perDay,
    day: formatLocal(n.dueAt, tz).slice(0, 10),
    isStranger: (chatId, userId) => d.gate.isStrangerCall(chatId, userId),
  });
}
