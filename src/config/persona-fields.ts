/**
 * The persona file's fields: the canonical headings, which are required, the defaults and bounds
 * of the number fields, and the mapping of a file's sections to fields (persona-parse.ts reads them).
 */
import { ConfigError } from "./config-error";
import { closest } from "../base/did-you-mean";
import { headingKey, type PersonaSection } from "./persona-sections";
import type { NumberRule } from "./persona-values";

/** `# When Asked If AI` is one line of at most this many characters (it goes with every call). */
export const WHEN_ASKED_MAX_CHARS = 300;

/** Default sizes in messages; the persona's `# History Window`, `# Thread Window`, `# Focused Window` override them. */
export const WINDOW_ITEMS = { history: 16, thread: 8, focused: 8 } as const;

/** Canonical field headings, in the order the docs list them. */
const PERSONA_FIELDS = [
  "Agent Name",
  "Agent Phone",
  "Agent Instructions",
  "Life",
  "Role Prompt",
  "Aliases",
  "When Asked If AI",
  "Group Mode",
  "Address Confidence",
  "Interject Threshold",
  "Interjections Per Hour",
  "Agent Sticker Sets",
  "Agent Stickers",
  "Start Typing Delay",
  "Typing Speed",
  "Read Delay",
  "Quiet Window",
  "History Window",
  "Thread Window",
  "Focused Window",
  "Time Zone",
  "DM Policy",
  "Allowed Users",
  "Allowed Groups",
  "Answers Per Hour",
  "DM Answers Per Hour",
  "Person Share",
  "Daily Token Budget",
  "Stranger Token Share",
  "Person Token Share",
  "Chat Token Share",
  "Contacts Reserve",
  "Takeover Silence",
  "Sleep",
  "Busy",
  "Intentions Per Chat",
  "Proactive Per Day",
  "Intention Grace",
  "Models",
  "Look Ups",
  "Look Up Chats",
  "Look Ups Per Day",
  "Look Ups Per Person",
  "Look Ups Per Chat",
  "Voice",
] as const;
export type FieldName = (typeof PERSONA_FIELDS)[number];

const FIELD_BY_KEY: ReadonlyMap<string, FieldName> = new Map(PERSONA_FIELDS.map((f) => [headingKey(f), f]));
export const REQUIRED: readonly FieldName[] = ["Agent Name", "Agent Instructions"];

/** Defaults and bounds of the timing fields. */
export const PERSONA_TIMING = {
  startTypingDelaySec: { default: 1.5, min: 0, max: 60, unit: "seconds" },
  typingSpeedCps: { default: 12, min: 1, max: 100, unit: "characters per second" },
  readDelaySec: { default: 2, min: 0, max: 600, unit: "seconds" },
  quietWindowSec: { default: 3, min: 0, max: 60, unit: "seconds" },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the history window sizes, in messages (context/window.ts). */
export const PERSONA_WINDOW = {
  historyWindow: { default: WINDOW_ITEMS.history, min: 1, max: 50, unit: "messages", integer: true },
  threadWindow: { default: WINDOW_ITEMS.thread, min: 0, max: 50, unit: "messages", integer: true },
  focusedWindow: { default: WINDOW_ITEMS.focused, min: 0, max: 50, unit: "messages", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the smart/talkative group fields. */
export const PERSONA_ADDRESSING = {
  addressConfidence: { default: 0.6, min: 0, max: 1, unit: "confidence (0-1)" },
  interjectThreshold: { default: 0.7, min: 0, max: 1, unit: "score (0-1)" },
  interjectionsPerHour: { default: 2, min: 0, max: 60, unit: "interjections", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the intention fields. */
export const INTENTION_LIMITS = {
  perChat: { default: 3, min: 0, max: 20, unit: "intentions", integer: true },
  perDay: { default: 5, min: 0, max: 100, unit: "planning calls", integer: true },
  graceHours: { default: 6, min: 0, max: 168, unit: "hours" },
} as const satisfies Record<string, NumberRule & { default: number }>;

/**
 * Maps sections to fields; an unknown heading (with the field it most likely meant) or a
 * repeated one is a problem told to `problem`, and the section is left out.
 */
export function indexSections(
  sections: readonly PersonaSection[],
  file: string,
  problem: (e: ConfigError) => void,
): Map<FieldName, PersonaSection> {
  const byField = new Map<FieldName, PersonaSection>();
  for (const s of sections) {
    const field = FIELD_BY_KEY.get(s.key);
    if (field === undefined) {
      const meant = closest(s.heading, PERSONA_FIELDS);
      problem(
        new ConfigError({
          file,
          field: s.heading,
          problem: `unknown heading on line ${s.line}${meant !== undefined ? ` (did you mean "# ${meant}"?)` : ` (expected one of: ${PERSONA_FIELDS.join(", ")})`}`,
        }),
      );
      continue;
    }
    const first = byField.get(field);
    if (first !== undefined) {
      problem(
        new ConfigError({
          file,
          field,
          problem: `heading appears more than once (lines ${first.line} and ${s.line})`,
        }),
      );
      continue;
    }
    byField.set(field, s);
  }
  return byField;
}
