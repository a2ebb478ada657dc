/**
 * A persona file edited while the persona runs (app/persona-watch.ts): what can change live is
 * written into the running persona — the one object every part reads its fields from when it
 * uses them (the prompt, the planner, the addressing, the typing pace) — and the rest is named
 * as needing a restart. Live: the instructions and role prompts, aliases (the address matchers
 * follow them: inbound/addressing-live.ts), the AI answer, the group mode and its thresholds,
 * stickers, typing pace, the thread and focused windows, her `# Life`, the `# Look Ups` rules, and the daily rhythm (`# Sleep`,
 * `# Busy`: the day watch too). At the next start: the name (it is the account's and the
 * database's key), the phone (login only), the time zone, read delay and quiet window, the
 * history window, the policies and caps, the intentions' limits, the `# Models`.
 */
import type { Persona } from "../config/persona";
import type { DayWatch } from "../config/persona-rhythm";

type Field = keyof Persona;

/**
 * Every field of a persona, and when an edit of it applies: `live` — every reader takes it from
 * the running persona when it uses it; `start` — read once, at start (or a key of the persona's
 * identity); `none` — not a field of the file. A Record, so a new field fails the type check
 * until it is placed here (an edit is never ignored without a word).
 */
const WHEN: Record<Field, "live" | "start" | "none"> = {
  instructions: "live",
  life: "live",
  rolePrompts: "live",
  aliases: "live",
  whenAskedIfAi: "live",
  groupMode: "live",
  addressConfidence: "live",
  interjectThreshold: "live",
  interjectionsPerHour: "live",
  stickerSets: "live",
  stickers: "live",
  startTypingDelaySec: "live",
  typingSpeedCps: "live",
  threadWindow: "live",
  focusedWindow: "live",
  rhythm: "live",
  name: "start",
  phone: "start",
  timeZone: "start",
  readDelaySec: "start",
  quietWindowSec: "start",
  historyWindow: "start",
  policy: "start",
  intentions: "start",
  // The models are chosen when the persona's LLM is made; the look-up rules are read at each check.
  models: "start",
  lookUps: "live",
  // Read at each plan and each voice send.
  voice: "live",
  file: "none",
};
const LIVE = (Object.keys(WHEN) as Field[]).filter((f) => WHEN[f] === "live");
const AT_START = (Object.keys(WHEN) as Field[]).filter((f) => WHEN[f] === "start");

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
  life: "Life",
  models: "Models",
  lookUps: "Look Ups",
  voice: "Voice",
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
