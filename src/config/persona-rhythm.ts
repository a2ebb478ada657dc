/**
 * The persona's day (`# Sleep`, `# Busy`): when it sleeps, when it is busy and how slow it is
 * then, and what that means at a given instant — awake, busy or asleep, until when, and when a
 * message that arrives now is first looked at. Parsed from the persona file (persona.ts) and read
 * by the inbound path (night holds, stretched read delay), planning (the typing start, the
 * request's header), intentions (due in the night: the morning) and presence (offline asleep).
 *
 * Decisions: no `# Sleep` means the persona never sleeps (a persona made before this field keeps
 * answering at night); the times are the persona's `# Time Zone`; every day is alike (no
 * weekdays); a range may cross midnight (`23:30-07:30`). Busy responsiveness: `slow` stretches
 * the read delay and the typing start 3×, `very slow` 10×.
 */
import { clockOf, zonedDayAt, zonedParts } from "../base/zoned-time";
import { ConfigError } from "./config-error";
import { listItems, quoteValue, singleLine, type ValueSource } from "./persona-values";

/** A span of the day in local minutes; `end` may be below `start` (it crosses midnight). */
export interface DaySpan {
  readonly start: number;
  readonly end: number;
}

/** How slowly the persona answers while busy. */
type Responsiveness = "slow" | "very slow";

/** How much a busy spell stretches the read delay and the typing start. */
const STRETCH: Readonly<Record<Responsiveness, number>> = { slow: 3, "very slow": 10 };

export interface BusySpan extends DaySpan {
  readonly level: Responsiveness;
}

/** The persona's day. Empty: always awake, never busy. */
export interface Rhythm {
  readonly sleep?: DaySpan;
  readonly busy: readonly BusySpan[];
}

export const NO_RHYTHM: Rhythm = Object.freeze({ busy: Object.freeze([]) });

const SPAN_RE = /^(\d{1,2}):(\d{2})\s*[-–—]\s*(\d{1,2}):(\d{2})$/;

function span(src: ValueSource, text: string, example: string): DaySpan {
  const m = SPAN_RE.exec(text.trim());
  const minutes = (h: string, mm: string) => {
    const hh = Number(h);
    const mi = Number(mm);
    return hh <= 23 && mi <= 59 ? hh * 60 + mi : undefined;
  };
  const start = m ? minutes(m[1]!, m[2]!) : undefined;
  const end = m ? minutes(m[3]!, m[4]!) : undefined;
  if (start === undefined || end === undefined)
    throw new ConfigError({
      file: src.file,
      field: src.field,
      problem: `bad time range ${quoteValue(text)} (expected HH:MM-HH:MM in the persona's time zone, e.g. ${example})`,
    });
  if (start === end)
    throw new ConfigError({
      file: src.file,
      field: src.field,
      problem: `time range ${quoteValue(text)} is empty (start and end are the same)`,
    });
  return { start, end };
}

/** `# Sleep`: one range, `23:30-07:30` (may cross midnight). */
export function parseSleep(src: ValueSource, raw: string): DaySpan {
  return span(src, singleLine(src, raw), "23:30-07:30");
}

/** `# Busy`: one range per line with its responsiveness, `09:00-17:00 slow` (`slow` when left out). */
export function parseBusy(src: ValueSource, raw: string): BusySpan[] {
  const out: BusySpan[] = [];
  for (const item of listItems(raw)) {
    const m = /^(\S+?\s*[-–—]\s*\S+)(?:\s+(.+))?$/.exec(item);
    const level = (m?.[2] ?? "slow").trim().toLowerCase().replace(/\s+/g, " ");
    if (level !== "slow" && level !== "very slow")
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `unknown responsiveness ${quoteValue(m?.[2] ?? item)} in ${quoteValue(item)} (expected slow or very slow, e.g. 09:00-17:00 slow)`,
      });
    out.push({ ...span(src, m?.[1] ?? item, "09:00-17:00 slow"), level });
  }
  return out;
}

/** Whether local minute `m` is inside a span. */
function inside(s: DaySpan, m: number): boolean {
  return s.start < s.end ? m >= s.start && m < s.end : m >= s.start || m < s.end;
}

/** What the persona is doing at an instant. */
export interface RhythmState {
  readonly state: "awake" | "busy" | "asleep";
  /** Busy: how slow. */
  readonly level?: Responsiveness;
  /** When this state ends (ms); undefined when it never does (no rhythm). */
  readonly until?: number;
  /** Awake or busy: when it next goes to sleep, if it sleeps at all (ms). */
  readonly sleepsAt?: number;
}

/** The end of the span that contains local minute `m` of the day of `now` (it may be tomorrow). */
function endOf(s: DaySpan, now: number, m: number, tz: string): number {
  const nextDay = s.start > s.end && m >= s.start ? 1 : 0;
  return zonedDayAt(now, nextDay, s.end, tz);
}

/** The next start of a span after `now` (today or tomorrow). */
function nextStart(s: DaySpan, now: number, m: number, tz: string): number {
  return zonedDayAt(now, m < s.start ? 0 : 1, s.start, tz);
}

/** What the persona is doing at `now` (its `# Sleep` first, then its `# Busy` spans). */
export function rhythmAt(r: Rhythm, timeZone: string, now: number): RhythmState {
  if (!r.sleep && r.busy.length === 0) return { state: "awake" };
  const m = zonedParts(now, timeZone).minuteOfDay;
  if (r.sleep && inside(r.sleep, m)) return { state: "asleep", until: endOf(r.sleep, now, m, timeZone) };
  const sleepsAt = r.sleep ? nextStart(r.sleep, now, m, timeZone) : undefined;
  const busy = r.busy.find((b) => inside(b, m));
  const at = sleepsAt !== undefined ? { sleepsAt } : {};
  if (busy) {
    const end = endOf(busy, now, m, timeZone);
    return {
      state: "busy",
      level: busy.level,
      until: sleepsAt !== undefined ? Math.min(end, sleepsAt) : end,
      ...at,
    };
  }
  const starts = r.busy.map((b) => nextStart(b, now, m, timeZone));
  const next = Math.min(...starts, sleepsAt ?? Number.POSITIVE_INFINITY);
  return { state: "awake", ...(Number.isFinite(next) ? { until: next } : {}), ...at };
}

/**
 * When the persona first looks at something that arrives at `at`: then, or when it wakes up if
 * it arrives in its sleep. Answer ages count from here (a message of 02:00 is fresh at 07:30).
 */
export function lookedAt(r: Rhythm, timeZone: string, at: number): number {
  if (!r.sleep) return at;
  const m = zonedParts(at, timeZone).minuteOfDay;
  return inside(r.sleep, m) ? endOf(r.sleep, at, m, timeZone) : at;
}

/** How much a busy spell stretches the read delay and typing start at `now` (1 when not busy). */
export function stretchAt(r: Rhythm, timeZone: string, now: number): number {
  const s = rhythmAt(r, timeZone, now);
  return s.state === "busy" && s.level ? STRETCH[s.level] : 1;
}

/** `23:30-07:30` */
export function formatSpan(s: DaySpan): string {
  return `${clockOf(s.start)}-${clockOf(s.end)}`;
}

/**
 * A persona's day as the runtime asks it, many times a second: the state at an instant is
 * computed once (Intl's zone rules) and reused until it ends, so asking costs a comparison.
 */
export class DayWatch {
  private cached: { readonly from: number; readonly state: RhythmState } | undefined;

  constructor(
    private rhythmNow: Rhythm,
    readonly timeZone: string,
  ) {}

  get rhythm(): Rhythm {
    return this.rhythmNow;
  }

  /** The persona file's `# Sleep` / `# Busy` were edited while running (app/persona-watch.ts). */
  change(rhythm: Rhythm): void {
    this.rhythmNow = rhythm;
    this.cached = undefined;
  }

  /** What the persona is doing at `now`. */
  at(now: number): RhythmState {
    const c = this.cached;
    if (c && now >= c.from && (c.state.until === undefined || now < c.state.until)) return c.state;
    const state = rhythmAt(this.rhythm, this.timeZone, now);
    this.cached = { from: now, state };
    return state;
  }

  asleep(now: number): boolean {
    return this.at(now).state === "asleep";
  }

  /** See {@link lookedAt}. */
  lookedAt(at: number): number {
    return lookedAt(this.rhythm, this.timeZone, at);
  }

  /**
   * What an addressed message arriving at `now` waits for: asleep, its waking (`wakeAt`); and how
   * much a busy spell then stretches the read delay and typing start (`stretch`, 1 when not busy).
   */
  arrival(now: number): { readonly wakeAt?: number; readonly stretch: number } {
    const s = this.at(now);
    if (s.state === "asleep" && s.until !== undefined)
      return { wakeAt: s.until, stretch: stretchAt(this.rhythm, this.timeZone, s.until) };
    return { stretch: s.state === "busy" && s.level ? STRETCH[s.level] : 1 };
  }
}
