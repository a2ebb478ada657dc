/**
 * Who may make the persona look things up on the web, where, and how often (docs/world.md).
 * Parsed from persona-file headings (persona.ts):
 * - `# Look Ups`: `off`, `owner` (only the people in `# Allowed Users`), `contacts` (the default:
 *   the account's contacts and `# Allowed Users`), or `everyone`. Strangers are never allowed by
 *   default.
 * - `# Look Up Chats`: per-chat exceptions, one a line, `<chat id or @username>: <level>`.
 * - `# Look Ups Per Day`, `# Look Ups Per Person`, `# Look Ups Per Chat`: caps per UTC day, on top
 *   of the token budget and shares every call counts in.
 */
import { ConfigError } from "./config-error";
import { parsePeerList, type PeerRef } from "./persona-policy";
import { listItems, quoteValue, type NumberRule, type ValueSource } from "./persona-values";

/** Who may ask for a look-up. */
export type LookUpLevel = "off" | "owner" | "contacts" | "everyone";
const LEVELS: readonly LookUpLevel[] = ["off", "owner", "contacts", "everyone"];

export interface LookUpPolicy {
  readonly level: LookUpLevel;
  /** Per-chat levels (the first matching entry wins over `level`). */
  readonly chats: readonly { readonly chat: PeerRef; readonly level: LookUpLevel }[];
  /** Look-ups per UTC day, all chats together. */
  readonly perDay: number;
  /** Look-ups asked by one person per UTC day. */
  readonly perPerson: number;
  /** Look-ups in one chat per UTC day. */
  readonly perChat: number;
}

/** Defaults and bounds of the look-up caps. */
export const LOOKUP_LIMITS = {
  perDay: { default: 40, min: 0, max: 10_000, unit: "look-ups", integer: true },
  perPerson: { default: 10, min: 0, max: 10_000, unit: "look-ups", integer: true },
  perChat: { default: 20, min: 0, max: 10_000, unit: "look-ups", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

export const DEFAULT_LOOKUPS: LookUpPolicy = Object.freeze({
  level: "contacts",
  chats: [],
  perDay: LOOKUP_LIMITS.perDay.default,
  perPerson: LOOKUP_LIMITS.perPerson.default,
  perChat: LOOKUP_LIMITS.perChat.default,
});

/** `# Look Ups`: one of the levels. */
export function parseLookUpLevel(src: ValueSource, raw: string): LookUpLevel {
  const v = raw.trim().toLowerCase();
  if ((LEVELS as readonly string[]).includes(v)) return v as LookUpLevel;
  throw new ConfigError({
    file: src.file,
    field: src.field,
    problem: `unknown value ${quoteValue(raw.trim())} (expected one of: ${LEVELS.join(", ")})`,
  });
}

/** `# Look Up Chats`: `-1001234: everyone`, `@friends: off`, one a line. */
export function parseLookUpChats(src: ValueSource, raw: string): LookUpPolicy["chats"] {
  return listItems(raw).map((line) => {
    const m = /^(.+?)\s*:\s*([a-z]+)$/i.exec(line);
    if (!m)
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `bad entry ${quoteValue(line)} (expected "<chat id or @username>: <${LEVELS.join("|")}>")`,
      });
    const [chat] = parsePeerList(src, m[1]!, /^\d+$/.test(m[1]!) ? "user" : "group");
    return { chat: chat!, level: parseLookUpLevel(src, m[2]!) };
  });
}

/** Whether the persona may look anything up anywhere (the fixed instruction lists `look_up` then). */
export function lookUpsOn(p: LookUpPolicy): boolean {
  return p.perDay > 0 && (p.level !== "off" || p.chats.some((c) => c.level !== "off"));
}
