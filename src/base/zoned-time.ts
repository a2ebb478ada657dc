/**
 * Wall-clock time in an IANA time zone, both ways: the local parts of an instant, and the
 * instant of a local date and time. Intl does the zone rules (daylight saving included); no
 * product knowledge here.
 */

/** An instant's local date and time in a zone. */
export interface ZonedParts {
  readonly year: number;
  /** 1–12. */
  readonly month: number;
  /** 1–31. */
  readonly day: number;
  /** 0–23. */
  readonly hour: number;
  readonly minute: number;
  /** 0 (Sunday) – 6. */
  readonly weekday: number;
  /** hour * 60 + minute. */
  readonly minuteOfDay: number;
}

const WEEKDAY_INDEX: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 };
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      weekday: "short",
      hourCycle: "h23",
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The local date and time of `ms` in `timeZone`. */
export function zonedParts(ms: number, timeZone: string): ZonedParts {
  const p: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const x of formatter(timeZone).formatToParts(new Date(ms))) p[x.type] = x.value;
  const hour = Number(p.hour) % 24;
  const minute = Number(p.minute);
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour,
    minute,
    weekday: WEEKDAY_INDEX[p.weekday ?? ""] ?? 0,
    minuteOfDay: hour * 60 + minute,
  };
}

/** The zone's offset from UTC at `ms`, in ms (local = UTC + offset). */
function offsetAt(ms: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute);
  return asUtc - Math.floor(ms / 60_000) * 60_000;
}

/**
 * The instant a local date and time names in `timeZone` (month 1–12; day and minutes may overflow:
 * day 32 is the next month's first). A time skipped by a daylight-saving jump is read with the
 * offset before the jump (02:30 on a spring-forward night is 03:30); a repeated one is its first
 * occurrence.
 */
function zonedToUtc(
  o: { year: number; month: number; day: number; minuteOfDay: number },
  timeZone: string,
): number {
  const naive = Date.UTC(o.year, o.month - 1, o.day, 0, o.minuteOfDay);
  let guess = naive - offsetAt(naive, timeZone);
  // Twice: the offset at the guess may differ from the offset at the naive instant (near a jump).
  guess = naive - offsetAt(guess, timeZone);
  const again = naive - offsetAt(guess, timeZone);
  return Math.min(guess, again);
}

/** The local date `days` after the one of `ms` (calendar days in the zone), at `minuteOfDay`. */
export function zonedDayAt(ms: number, days: number, minuteOfDay: number, timeZone: string): number {
  const p = zonedParts(ms, timeZone);
  return zonedToUtc({ year: p.year, month: p.month, day: p.day + days, minuteOfDay }, timeZone);
}

/** `HH:MM` of a minute of the day. */
export function clockOf(minuteOfDay: number): string {
  const m = ((minuteOfDay % 1440) + 1440) % 1440;
  return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/** `2026-11-23 09:00`: an instant as local date and time in the zone. */
export function formatLocal(ms: number, timeZone: string): string {
  const p = zonedParts(ms, timeZone);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${clockOf(p.minuteOfDay)}`;
}

/**
 * A local date and time as people write it, `2026-11-23 09:00` (a `T` works too), read in
 * `timeZone`: the instant, or undefined when it is not one (a bad date such as 02-30, 24:00).
 */
export function parseLocal(text: string, timeZone: string): number | undefined {
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})\s*$/.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute] = m.slice(1).map(Number) as [number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59) return undefined;
  const at = zonedToUtc({ year, month, day, minuteOfDay: hour * 60 + minute }, timeZone);
  // Day 31 of a 30-day month rolls over into the next: not a date.
  return zonedParts(at, timeZone).day === day ? at : undefined;
}
