/**
 * Parsers for the values under persona-file headings. Each takes the trimmed raw text and throws
 * a ConfigError naming the file and field when the value is bad. zod holds the rules.
 */
import { z } from "zod";
import { numberProblem, quoteValue, readNumber, type NumberRule } from "./numbers";
import { ConfigError } from "./config-error";

export { quoteValue, type NumberRule } from "./numbers";

/** Where a value came from, for error messages. */
export interface ValueSource {
  readonly file: string;
  readonly field: string;
}

const fail = (src: ValueSource, problem: string): never => {
  throw new ConfigError({ file: src.file, field: src.field, problem });
};

/** Control characters have no business in names, aliases or phone numbers. */
const NO_CONTROLS = /^[^\p{Cc}]*$/u;

/** The list lines of a value: one item per line, Markdown bullets allowed, blank lines skipped. */
export function listItems(raw: string): string[] {
  return raw
    .split("\n")
    .map((l) => l.replace(/^\s*[-*+][ \t]+/, "").trim())
    .filter((l) => l !== "");
}

/** A value that must be a single line. */
export function singleLine(src: ValueSource, raw: string): string {
  if (raw.includes("\n")) fail(src, `expected one line, got ${raw.split("\n").length}`);
  return raw.trim();
}

/** A one-line free-text field of at most `max` characters (`# When Asked If AI`). */
export function parseOneLine(src: ValueSource, raw: string, max: number): string {
  const line = singleLine(src, raw);
  if (line.length > max || !NO_CONTROLS.test(line))
    fail(src, `bad value ${quoteValue(line)} (expected one line of at most ${max} characters)`);
  return line;
}

const agentNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(NO_CONTROLS)
  // The name names a folder (agents/<Name>/prompts) and appears in logs: no path tricks.
  .refine((s) => !/[/\\]/.test(s) && !s.startsWith("."), "no slashes or leading dot");

/** `# Agent Name`: one line, 1–64 characters, usable as a folder name. */
export function parseAgentName(src: ValueSource, raw: string): string {
  const name = singleLine(src, raw);
  if (!agentNameSchema.safeParse(name).success) {
    fail(src, `bad value ${quoteValue(name)} (expected 1-64 characters, no slashes, no leading dot)`);
  }
  return name;
}

const phoneSchema = z.string().regex(/^\+\d{5,15}$/);

/**
 * `# Agent Phone`: checked loosely as `+` and digits; spaces, dashes, dots and parentheses are
 * allowed for readability and removed. Telegram does the real check at login.
 */
export function parsePhone(src: ValueSource, raw: string): string {
  const line = singleLine(src, raw);
  const phone = line.replace(/[\s\-.()]/g, "");
  if (!phoneSchema.safeParse(phone).success) {
    fail(src, `bad value ${quoteValue(line)} (expected + followed by 5-15 digits, e.g. +15551234567)`);
  }
  return phone;
}

/**
 * How the persona behaves in groups: `strict` answers only explicit addressing (a mention, a
 * reply to it, its name or an alias); `smart` also answers what an addressing call judges to be
 * meant for it; `talkative` may also join in by itself (a few times per hour).
 */
export type GroupMode = "strict" | "smart" | "talkative";
const GROUP_MODES: readonly GroupMode[] = ["strict", "smart", "talkative"];

/** `# Group Mode`: strict, smart or talkative. */
export function parseGroupMode(src: ValueSource, raw: string): GroupMode {
  const mode = singleLine(src, raw).toLowerCase();
  if ((GROUP_MODES as readonly string[]).includes(mode)) return mode as GroupMode;
  return fail(src, `unknown value ${quoteValue(raw)} (expected strict, smart or talkative)`);
}

/** A numeric field within `rule`, written in one of the forms of numbers.ts; the error quotes it as written. */
export function parseNumber(src: ValueSource, raw: string, rule: NumberRule): number {
  const line = singleLine(src, raw);
  const problem = numberProblem(line, rule);
  if (problem !== undefined) fail(src, problem);
  return readNumber(line)!;
}

const aliasSchema = z.string().min(1).max(64).regex(NO_CONTROLS);

/** `# Aliases`: one per line; repeats (ignoring case) are dropped, they mean nothing more. */
export function parseAliases(src: ValueSource, raw: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of listItems(raw)) {
    const alias = item.replace(/\s+/g, " ");
    if (!aliasSchema.safeParse(alias).success)
      fail(src, `bad alias ${quoteValue(alias)} (expected 1-64 characters)`);
    const key = alias.toLowerCase();
    if (!seen.has(key)) out.push(alias);
    seen.add(key);
  }
  return out;
}

// Telegram's rule for set short names (letters, digits, underscores; up to 64 characters).
const stickerSetSchema = z.string().regex(/^[A-Za-z0-9_]{1,64}$/);
/** People paste the share link; accept it and keep only the short name. */
const STICKER_LINK_RE = /^(?:https?:\/\/)?(?:t\.me|telegram\.me)\/addstickers\//i;

/** One explicit sticker: its set's short name and its name in the set (its emoji). */
export interface StickerRef {
  readonly set: string;
  readonly name: string;
}

/** `# Agent Stickers`: one `set::name` per line (name: the sticker's emoji in that set). */
export function parseStickers(src: ValueSource, raw: string): StickerRef[] {
  const out: StickerRef[] = [];
  for (const item of listItems(raw)) {
    const m = /^([^:\s]+)\s*::\s*(\S.{0,15})$/u.exec(item);
    const set = m?.[1]?.replace(STICKER_LINK_RE, "") ?? "";
    const name = m?.[2]?.trim() ?? "";
    if (!stickerSetSchema.safeParse(set).success || name === "") {
      fail(
        src,
        `bad sticker ${quoteValue(item)} (expected set::name, e.g. MiraCats::😺 — the set's short name, then the sticker's emoji)`,
      );
    }
    if (out.some((s) => s.set.toLowerCase() === set.toLowerCase() && s.name === name))
      fail(src, `sticker "${set}::${name}" is listed twice`);
    out.push({ set, name });
  }
  return out;
}

/** `# Agent Sticker Sets`: one set short name (or t.me/addstickers link) per line. */
export function parseStickerSets(src: ValueSource, raw: string): string[] {
  const out: string[] = [];
  for (const item of listItems(raw)) {
    const name = item.replace(STICKER_LINK_RE, "").replace(/\/+$/, "");
    if (!stickerSetSchema.safeParse(name).success) {
      fail(src, `bad sticker set ${quoteValue(item)} (expected a short name: letters, digits, underscores)`);
    }
    if (out.some((s) => s.toLowerCase() === name.toLowerCase()))
      fail(src, `sticker set "${name}" is listed twice`);
    out.push(name);
  }
  return out;
}

/** The machine's time zone (`TZ`, else the system's), UTC when it has none Intl knows. */
export function defaultTimeZone(): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return zone && isTimeZone(zone) ? zone : "UTC";
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `# Time Zone`: an IANA zone name such as Europe/Berlin or UTC. */
export function parseTimeZone(src: ValueSource, raw: string): string {
  const v = singleLine(src, raw);
  if (!isTimeZone(v))
    throw new ConfigError({
      file: src.file,
      field: src.field,
      problem: `unknown time zone ${quoteValue(raw)} (expected an IANA name such as Europe/Berlin, America/New_York or UTC)`,
    });
  return new Intl.DateTimeFormat("en-US", { timeZone: v }).resolvedOptions().timeZone;
}
