/**
 * A persona file edited while the persona runs (app/persona-watch.ts): what can change live is
 * written into the running persona — the one object every part reads its fields from when it
 * uses them (the prompt, the planner, the addressing, the typing pace) — and the rest is named
 * as needing a restart. Live: the instructions and role prompts, aliases (the address matchers
 * follow them: inbound/addressing-live.ts), the AI answer, the group mode and its thresholds,
 * stickers, typing pace, the thread and focused windows, and the daily rhythm (`# Sleep`,
 * `# Busy`: the day watch too). At the next start: the name (it is the account's and the
 * database's key), the phone (login only), the time zone, read delay and quiet window, the
 * history window, the policies and caps, the intentions' limits.
 */
import type { Persona } from "../config/persona";
import type { DayWatch } from "../config/persona-rhythm";

type Field = keyof Persona;

/** Fields every reader takes from the running persona when it uses them. */
const LIVE: readonly Field[] = [
  "instructions",
  "rolePrompts",
  "aliases",
  "whenAskedIfAi",
  "groupMode",
  "addressConfidence",
  "interjectThreshold",
  "interjectionsPerHour",
  "stickerSets",
  "stickers",
  "startTypingDelaySec",
  "typingSpeedCps",
  "threadWindow",
  "focusedWindow",
  "rhythm",
];

/** Fields read once, at start (or keys of the persona's identity). */
const AT_START: readonly Field[] = [
  "name",
  "phone",
  "timeZone",
  "readDelaySec",
  "quietWindowSec",
  "historyWindow",
  "policy",
  "intentions",
];

/** The persona file's field heading of a Persona key, for the log line. */
const HEADING: Partial<Record<Field, string>> = {
  name: "Agent Name",
  instructions: "Agent Instructions",
  rolePrompts: "role prompts",
  aliases: "Aliases",
  whenAskedIfAi: "When Asked If AI",
  groupMode: "Group Mode",
  stickerSets: "Agent Sticker Sets",
  stickers: "Agent Stickers",
  startTypingDelaySec: "Start Typing Delay",
  typingSpeedCps: "Typing Speed",
  readDelaySec: "Read Delay",
  quietWindowSec: "Quiet Window",
  historyWindow: "History Window",
  threadWindow: "Thread Window",
  focusedWindow: "Focused Window",
  timeZone: "Time Zone",
  rhythm: "Sleep / Busy",
  policy: "policies",
};

export interface PersonaChange {
  /** Headings of what changed and now applies. */
  readonly applied: readonly string[];
  /** Headings of what changed but applies only at the next start. */
  readonly atRestart: readonly string[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const heading = (f: Field) => HEADING[f] ?? f;

/** Write what may change live from `next` into the running `current` (and its day watch). */
export function applyPersonaChange(current: Persona, next: Persona, day?: DayWatch): PersonaChange {
  const applied: string[] = [];
  const atRestart: string[] = [];
  const target = current as { -readonly [K in Field]: Persona[K] };
  for (const f of LIVE) {
    if (same(current[f], next[f])) continue;
    (target as Record<Field, unknown>)[f] = next[f];
    applied.push(heading(f));
    if (f === "rhythm") day?.change(next.rhythm);
  }
  for (const f of AT_START) if (!same(current[f], next[f])) atRestart.push(heading(f));
  return { applied, atRestart };
}
