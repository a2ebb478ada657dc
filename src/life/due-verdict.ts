/**
 * Whether a due intention fires now (life/intentions.ts, steps 1–4): asleep (`# Sleep`), it is
 * held until she wakes; the owner's switches and the caps (policy/gate.ts `proactive`) hold it
 * (a takeover silence) or skip it; `# Proactive Per Day` spent skips it; a private chat whose
 * partner did not answer her last two proactive messages skips it (she backs off).
 */
import type { Persona } from "../config/persona";
import { rhythmAt } from "../config/persona-rhythm";
import { clockOf, formatLocal, zonedDayAt, zonedParts } from "../base/zoned-time";
import type { ChatType } from "../base/types";
import type { Gate } from "../policy/gate";
import type { Intention, IntentionStore } from "../store/intentions";

/** A private chat's partner who ignored this many proactive messages in a row is left alone. */
const BACK_OFF_AFTER = 2;

/** What the rules read. */
export interface DueSources {
  readonly store: Pick<IntentionStore, "firedBetween" | "spokeSince">;
  readonly persona: Pick<Persona, "rhythm" | "timeZone" | "intentions">;
  readonly gate: Pick<Gate, "proactive">;
  readonly chatType: (chatId: string) => ChatType | undefined;
  /** When the partner of a private chat last wrote (ms). */
  readonly partnerLastWrote: (chatId: string) => number | undefined;
}

/** Held until a time, or skipped, with why; undefined: it fires. */
export type DueVerdict =
  { readonly hold: number; readonly why: string } | { readonly skip: string } | undefined;

export function dueVerdict(i: Intention, d: DueSources, now: number): DueVerdict {
  const tz = d.persona.timeZone;
  const day = d.persona.rhythm;
  const state = rhythmAt(day, tz, now);
  if (state.state === "asleep" && state.until !== undefined)
    return { hold: state.until, why: `asleep until ${clockOf(zonedParts(state.until, tz).minuteOfDay)}` };
  const gate = d.gate.proactive(i.chatId, i.forUser);
  if (gate && "hold" in gate)
    return { hold: gate.hold, why: `${gate.reason}, until ${formatLocal(gate.hold, tz)}` };
  if (gate) return { skip: gate.skip };
  const { perDay } = d.persona.intentions;
  if (d.store.firedBetween(zonedDayAt(now, 0, 0, tz), zonedDayAt(now, 1, 0, tz)) >= perDay)
    return {
      skip: `cap: ${perDay} proactive call${perDay === 1 ? "" : "s"} today already (# Proactive Per Day)`,
    };
  if (d.chatType(i.chatId) === "dm") {
    const since = d.partnerLastWrote(i.chatId) ?? 0;
    if (d.store.spokeSince(i.chatId, since) >= BACK_OFF_AFTER)
      return { skip: `backed off: no answer to the last ${BACK_OFF_AFTER} proactive messages` };
  }
  return undefined;
}
