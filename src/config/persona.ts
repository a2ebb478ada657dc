/**
 * Persona files: one Markdown file per persona, `agents/<Name>.md`, one `# Heading` per field.
 * A field's value is the text under its heading up to the next `# ` heading, trimmed.
 *
 * ```md
 * # Agent Name
 * Mira
 * # Agent Instructions
 * You are Mira …
 * # Group Mode
 * strict
 * ```
 *
 * Any problem (unknown or repeated heading, missing or bad value, unreadable file) is an error
 * naming the file and field; `loadPersonas` fails start if any file is bad.
 */
import { readdirSync, readFileSync, statSync, type Dirent } from "node:fs";
import { basename, extname, join } from "node:path";
import { ConfigError, errorCode, fsReason } from "./config-error";
import { closest } from "../base/did-you-mean";
import { loadRolePrompts, decodeUtf8, tooLarge, type RolePrompt } from "./persona-prompts";
import { headingKey, splitSections, type PersonaSection } from "./persona-sections";
import {
  DEFAULT_POLICY,
  parseDmPolicy,
  parsePeerList,
  parsePolicyNumber,
  POLICY_LIMITS,
  type PersonaPolicy,
} from "./persona-policy";
import { parseBusy, parseSleep, type Rhythm } from "./persona-rhythm";
import { parseModels, type LlmRoutes } from "./llm-routes";
import {
  DEFAULT_LOOKUPS,
  LOOKUP_LIMITS,
  parseLookUpChats,
  parseLookUpLevel,
  type LookUpPolicy,
} from "./persona-lookups";
import { DEFAULT_VOICE, parseVoice, type VoiceSetting } from "./persona-voice";
import {
  parseAgentName,
  parseAliases,
  parseOneLine,
  parseGroupMode,
  parseNumber,
  parsePhone,
  parseTimeZone,
  defaultTimeZone,
  parseStickerSets,
  parseStickers,
  type StickerRef,
  type GroupMode,
  type NumberRule,
} from "./persona-values";

/** `# When Asked If AI` is one line of at most this many characters (it goes with every call). */
const WHEN_ASKED_MAX_CHARS = 300;

/** Default sizes in messages; the persona's `# History Window`, `# Thread Window`, `# Focused Window` override them. */
export const WINDOW_ITEMS = { history: 16, thread: 8, focused: 8 } as const;

export type { GroupMode } from "./persona-values";
export type { PersonaPolicy } from "./persona-policy";

/** A parsed, validated persona. */
export interface Persona {
  readonly name: string;
  /** `+` and digits. Optional: only offered as the default phone number by `npm run login`. */
  readonly phone?: string;
  readonly instructions: string;
  /**
   * `# Life`: her own life — where she lives, what she does, what she likes, the people in her
   * life, her routines — shown to the model as hers to tell (prompt.ts); absent: none (start warns).
   */
  readonly life?: string;
  readonly rolePrompts: readonly RolePrompt[];
  /** Other names people call the persona by (addressing matches these). */
  readonly aliases: readonly string[];
  /** The operator's stance when someone sincerely asks whether the persona is an AI (one line); absent: the default (prompt.ts). */
  readonly whenAskedIfAi?: string;
  readonly groupMode: GroupMode;
  /** smart/talkative: answer an implicitly addressed message when the addressing call is at least this sure (0–1). */
  readonly addressConfidence: number;
  /** talkative: join in when the addressing call's `interject` score is above this (0–1). */
  readonly interjectThreshold: number;
  /** talkative: at most this many interjections per chat in any sliding hour. */
  readonly interjectionsPerHour: number;
  /** Sticker-set short names the persona may send from. */
  readonly stickerSets: readonly string[];
  /** Explicit stickers it may send (`# Agent Stickers`, `set::name`), beside whole sets. */
  readonly stickers: readonly StickerRef[];
  /** Seconds before typing starts. */
  readonly startTypingDelaySec: number;
  /** Simulated typing speed, characters per second. */
  readonly typingSpeedCps: number;
  /** Seconds before the chat is marked read after an addressed message. */
  readonly readDelaySec: number;
  /** Seconds without a new addressed message before a burst is planned (0: at once). */
  readonly quietWindowSec: number;
  /** The room's newest this many messages in every prompt (context/window.ts). */
  readonly historyWindow: number;
  /** At most this many earlier messages of a reply thread come along with a question asked in it. */
  readonly threadWindow: number;
  /** At most this many older messages that involved the persona (its own, replies to it, mentions) come along in groups. */
  readonly focusedWindow: number;
  /** IANA time zone of the persona's clock ("now" and history times in prompts). */
  readonly timeZone: string;
  /** Who it answers in private, where, and how much (see persona-policy.ts). */
  readonly policy: PersonaPolicy;
  /** Its day: `# Sleep` and `# Busy` (persona-rhythm.ts); empty: always awake. */
  readonly rhythm: Rhythm;
  /** What it may intend to do later by itself (life/intentions.ts), and how late it still may. */
  readonly intentions: IntentionLimits;
  /** `# Models`: which provider and model answer each kind of call for it (config/llm-routes.ts); empty: the environment's. */
  readonly models: LlmRoutes;
  /** Who may make it look things up on the web, where, how often (persona-lookups.ts). */
  readonly lookUps: LookUpPolicy;
  /** `# Voice`: whether, how and how long it answers with voice notes (persona-voice.ts); default never. */
  readonly voice: VoiceSetting;
  /** The file it came from, as the caller named it. */
  readonly file: string;
}

/** Bounds of the persona's own intentions (reminders and follow-ups it set itself). */
interface IntentionLimits {
  /** `# Intentions Per Chat`: pending intentions one chat may hold. */
  readonly perChat: number;
  /** `# Proactive Per Day`: planning calls intentions may start per local day, in every chat together. */
  readonly perDay: number;
  /** `# Intention Grace`: hours an intention may still fire late (the process was down), else it is missed. */
  readonly graceHours: number;
}

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
type FieldName = (typeof PERSONA_FIELDS)[number];

const FIELD_BY_KEY: ReadonlyMap<string, FieldName> = new Map(PERSONA_FIELDS.map((f) => [headingKey(f), f]));
const REQUIRED: readonly FieldName[] = ["Agent Name", "Agent Instructions"];

/** Defaults and bounds of the timing fields. */
const PERSONA_TIMING = {
  startTypingDelaySec: { default: 1.5, min: 0, max: 60, unit: "seconds" },
  typingSpeedCps: { default: 12, min: 1, max: 100, unit: "characters per second" },
  readDelaySec: { default: 2, min: 0, max: 600, unit: "seconds" },
  quietWindowSec: { default: 3, min: 0, max: 60, unit: "seconds" },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the history window sizes, in messages (context/window.ts). */
const PERSONA_WINDOW = {
  historyWindow: { default: WINDOW_ITEMS.history, min: 1, max: 50, unit: "messages", integer: true },
  threadWindow: { default: WINDOW_ITEMS.thread, min: 0, max: 50, unit: "messages", integer: true },
  focusedWindow: { default: WINDOW_ITEMS.focused, min: 0, max: 50, unit: "messages", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the smart/talkative group fields. */
const PERSONA_ADDRESSING = {
  addressConfidence: { default: 0.6, min: 0, max: 1, unit: "confidence (0-1)" },
  interjectThreshold: { default: 0.7, min: 0, max: 1, unit: "score (0-1)" },
  interjectionsPerHour: { default: 2, min: 0, max: 60, unit: "interjections", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Defaults and bounds of the intention fields. */
const INTENTION_LIMITS = {
  perChat: { default: 3, min: 0, max: 20, unit: "intentions", integer: true },
  perDay: { default: 5, min: 0, max: 100, unit: "planning calls", integer: true },
  graceHours: { default: 6, min: 0, max: 168, unit: "hours" },
} as const satisfies Record<string, NumberRule & { default: number }>;

/** Options for {@link parsePersona}. */
export interface ParsePersonaOptions {
  /** The file name used in errors and kept on the persona. */
  readonly file: string;
  /** Directories where role prompts are looked up, in order. */
  readonly promptDirs: readonly string[];
}

/**
 * Maps sections to fields; an unknown heading (with the field it most likely meant) or a
 * repeated one is a problem told to `problem`, and the section is left out.
 */
function indexSections(
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

/**
 * Parses the text of one persona file. Role prompts are read from disk (from `promptDirs`).
 * An empty optional field means "use the default". Throws ConfigError.
 */
export function parsePersona(text: string, opts: ParsePersonaOptions): Persona {
  const { file } = opts;
  // Every problem of the file is gathered and told at once (one fix-and-retry round, not one per problem).
  const problems: ConfigError[] = [];
  const problem = (e: ConfigError) => problems.push(e);
  /** A field's parse: its value, or `fallback` with the problem noted. */
  const attempt = <T>(fn: () => T, fallback: T): T => {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(e);
      return fallback;
    }
  };
  const fields = indexSections(splitSections(text, file), file, problem);
  for (const f of REQUIRED) {
    const s = fields.get(f);
    if (s === undefined) problem(new ConfigError({ file, field: f, problem: "required field is missing" }));
    else if (s.value === "") problem(new ConfigError({ file, field: f, problem: "required field is empty" }));
  }
  /** The non-empty value of an optional field, or undefined. */
  const value = (f: FieldName): string | undefined => {
    const v = fields.get(f)?.value;
    return v === undefined || v === "" ? undefined : v;
  };
  const src = (field: FieldName) => ({ file, field });
  const num = (f: FieldName, rule: NumberRule & { default: number }): number => {
    const v = value(f);
    return v === undefined ? rule.default : attempt(() => parseNumber(src(f), v, rule), rule.default);
  };
  const policyNum = (f: FieldName, rule: NumberRule & { default: number }): number => {
    const v = value(f);
    return v === undefined ? rule.default : attempt(() => parsePolicyNumber(src(f), v, rule), rule.default);
  };

  const nameRaw = value("Agent Name");
  const name = nameRaw === undefined ? "" : attempt(() => parseAgentName(src("Agent Name"), nameRaw), "");
  const phoneRaw = value("Agent Phone");
  const groupModeRaw = value("Group Mode");
  const aliasesRaw = value("Aliases");
  const whenAskedRaw = value("When Asked If AI");
  const stickersRaw = value("Agent Sticker Sets");
  const explicitStickersRaw = value("Agent Stickers");
  const promptsRaw = value("Role Prompt");
  const dmRaw = value("DM Policy");
  const usersRaw = value("Allowed Users");
  const groupsRaw = value("Allowed Groups");
  const policy: PersonaPolicy = Object.freeze({
    dm:
      dmRaw === undefined
        ? DEFAULT_POLICY.dm
        : attempt(() => parseDmPolicy(src("DM Policy"), dmRaw), DEFAULT_POLICY.dm),
    allowedUsers: Object.freeze(
      usersRaw === undefined ? [] : attempt(() => parsePeerList(src("Allowed Users"), usersRaw, "user"), []),
    ),
    allowedGroups: Object.freeze(
      groupsRaw === undefined
        ? []
        : attempt(() => parsePeerList(src("Allowed Groups"), groupsRaw, "group"), []),
    ),
    answersPerHour: policyNum("Answers Per Hour", POLICY_LIMITS.answersPerHour),
    dmAnswersPerHour: policyNum("DM Answers Per Hour", POLICY_LIMITS.dmAnswersPerHour),
    personShare: policyNum("Person Share", POLICY_LIMITS.personShare),
    dailyTokenBudget: policyNum("Daily Token Budget", POLICY_LIMITS.dailyTokenBudget),
    strangerTokenShare: policyNum("Stranger Token Share", POLICY_LIMITS.strangerTokenShare),
    personTokenShare: policyNum("Person Token Share", POLICY_LIMITS.personTokenShare),
    chatTokenShare: policyNum("Chat Token Share", POLICY_LIMITS.chatTokenShare),
    contactsReserve: policyNum("Contacts Reserve", POLICY_LIMITS.contactsReserve),
    takeoverSilenceMin: policyNum("Takeover Silence", POLICY_LIMITS.takeoverSilenceMin),
  });
  if (policy.dm === "allowlist" && policy.allowedUsers.length === 0 && usersRaw === undefined) {
    problem(
      new ConfigError({
        file,
        field: "Allowed Users",
        problem: "DM Policy is allowlist but no user is listed (list them here, or use DM Policy off)",
      }),
    );
  }

  const lookUpLevelRaw = value("Look Ups");
  const lookUpChatsRaw = value("Look Up Chats");
  const sleepRaw = value("Sleep");
  const sleep =
    sleepRaw === undefined ? undefined : attempt(() => parseSleep(src("Sleep"), sleepRaw), undefined);
  const persona: Persona = {
    name,
    ...(phoneRaw === undefined ? {} : { phone: attempt(() => parsePhone(src("Agent Phone"), phoneRaw), "") }),
    instructions: value("Agent Instructions") ?? "",
    ...(value("Life") ? { life: value("Life")! } : {}),
    rolePrompts: Object.freeze(
      promptsRaw === undefined
        ? []
        : attempt(() => loadRolePrompts(src("Role Prompt"), promptsRaw, opts.promptDirs), []),
    ),
    aliases: Object.freeze(
      aliasesRaw === undefined ? [] : attempt(() => parseAliases(src("Aliases"), aliasesRaw), []),
    ),
    ...(whenAskedRaw === undefined
      ? {}
      : {
          whenAskedIfAi: attempt(
            () => parseOneLine(src("When Asked If AI"), whenAskedRaw, WHEN_ASKED_MAX_CHARS),
            "",
          ),
        }),
    groupMode:
      groupModeRaw === undefined
        ? "strict"
        : attempt(() => parseGroupMode(src("Group Mode"), groupModeRaw), "strict" as const),
    addressConfidence: num("Address Confidence", PERSONA_ADDRESSING.addressConfidence),
    interjectThreshold: num("Interject Threshold", PERSONA_ADDRESSING.interjectThreshold),
    interjectionsPerHour: num("Interjections Per Hour", PERSONA_ADDRESSING.interjectionsPerHour),
    stickerSets: Object.freeze(
      stickersRaw === undefined
        ? []
        : attempt(() => parseStickerSets(src("Agent Sticker Sets"), stickersRaw), []),
    ),
    stickers: Object.freeze(
      explicitStickersRaw === undefined
        ? []
        : attempt(() => parseStickers(src("Agent Stickers"), explicitStickersRaw), []),
    ),
    startTypingDelaySec: num("Start Typing Delay", PERSONA_TIMING.startTypingDelaySec),
    typingSpeedCps: num("Typing Speed", PERSONA_TIMING.typingSpeedCps),
    readDelaySec: num("Read Delay", PERSONA_TIMING.readDelaySec),
    quietWindowSec: num("Quiet Window", PERSONA_TIMING.quietWindowSec),
    historyWindow: num("History Window", PERSONA_WINDOW.historyWindow),
    threadWindow: num("Thread Window", PERSONA_WINDOW.threadWindow),
    focusedWindow: num("Focused Window", PERSONA_WINDOW.focusedWindow),
    timeZone:
      value("Time Zone") === undefined
        ? defaultTimeZone()
        : attempt(() => parseTimeZone(src("Time Zone"), value("Time Zone")!), defaultTimeZone()),
    policy,
    rhythm: Object.freeze({
      ...(sleep !== undefined ? { sleep } : {}),
      busy: Object.freeze(
        value("Busy") === undefined ? [] : attempt(() => parseBusy(src("Busy"), value("Busy")!), []),
      ),
    }),
    intentions: Object.freeze({
      perChat: num("Intentions Per Chat", INTENTION_LIMITS.perChat),
      perDay: num("Proactive Per Day", INTENTION_LIMITS.perDay),
      graceHours: num("Intention Grace", INTENTION_LIMITS.graceHours),
    }),
    models:
      value("Models") === undefined ? {} : attempt(() => parseModels(src("Models"), value("Models")!), {}),
    lookUps: Object.freeze({
      level:
        lookUpLevelRaw === undefined
          ? DEFAULT_LOOKUPS.level
          : attempt(() => parseLookUpLevel(src("Look Ups"), lookUpLevelRaw), DEFAULT_LOOKUPS.level),
      chats: Object.freeze(
        lookUpChatsRaw === undefined
          ? []
          : attempt(() => parseLookUpChats(src("Look Up Chats"), lookUpChatsRaw), []),
      ),
      perDay: num("Look Ups Per Day", LOOKUP_LIMITS.perDay),
      perPerson: num("Look Ups Per Person", LOOKUP_LIMITS.perPerson),
      perChat: num("Look Ups Per Chat", LOOKUP_LIMITS.perChat),
    }),
    voice:
      value("Voice") === undefined
        ? DEFAULT_VOICE
        : attempt(() => parseVoice(src("Voice"), value("Voice")!), DEFAULT_VOICE),
    file,
  };
  if (problems.length === 1) throw problems[0]!;
  if (problems.length > 1)
    throw new ConfigError({
      file,
      problem: `${problems.length} problems`,
      errors: problems,
      message: `${file}: ${problems.length} problems:\n${problems
        .map(
          (p) =>
            `      - ${p.message.startsWith(`${file}: `) ? p.message.slice(file.length + 2) : p.message}`,
        )
        .join("\n")}`,
    });
  return Object.freeze(persona);
}

/** The `*.md` files directly in `dir` (links to files count), sorted by name. */
function personaFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    const code = errorCode(e);
    throw new ConfigError({
      file: dir,
      problem: `cannot be read (${code})`,
      message: `cannot read persona directory ${dir} (${code})`,
    });
  }
  return (
    entries
      .filter((e) => extname(e.name).toLowerCase() === ".md")
      // A link is followed; a dangling one is kept so reading it reports the problem loudly.
      .filter(
        (e) =>
          e.isFile() ||
          (e.isSymbolicLink() &&
            statSync(join(dir, e.name), { throwIfNoEntry: false })?.isDirectory() !== true),
      )
      .map((e) => e.name)
      .sort()
  );
}

/** Reads and parses one file; role prompts come from `<dir>/<file stem>/prompts` then `<dir>/prompts`. */
function loadOne(dir: string, entry: string): Persona {
  const file = join(dir, entry);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    throw new ConfigError({
      file,
      problem: `cannot be read: ${fsReason(e)}; make it readable by the user running this command`,
    });
  }
  const size = tooLarge(bytes);
  if (size) throw new ConfigError({ file, problem: size });
  const text = decodeUtf8(bytes);
  if (text === null) throw new ConfigError({ file, problem: "not valid UTF-8" });
  const stem = basename(entry, extname(entry));
  return parsePersona(text, { file, promptDirs: [join(dir, stem, "prompts"), join(dir, "prompts")] });
}

/** One persona file `entry` of `dir`, read and checked as at start (a ConfigError naming the file and field when bad). */
export function loadPersonaFile(dir: string, entry: string): Persona {
  return loadOne(dir, entry);
}

/**
 * Loads every `*.md` directly in `dir` (subfolders are for prompts and are not read as personas).
 * Throws a ConfigError listing every failing file when any file is bad, when two files share
 * an Agent Name (case-insensitively), or when there are no persona files at all.
 */
export function loadPersonas(dir: string): Persona[] {
  const entries = personaFiles(dir);
  if (entries.length === 0) {
    throw new ConfigError({
      file: dir,
      problem: "no persona files (*.md)",
      message: `no persona files (*.md) were found in ${dir}`,
    });
  }

  const personas: Persona[] = [];
  const errors: ConfigError[] = [];
  const byName = new Map<string, Persona>();
  for (const entry of entries) {
    try {
      const p = loadOne(dir, entry);
      const other = byName.get(p.name.toLowerCase());
      if (other !== undefined) {
        throw new ConfigError({
          file: p.file,
          field: "Agent Name",
          problem: `duplicate agent name "${p.name}" (also in ${other.file})`,
        });
      }
      byName.set(p.name.toLowerCase(), p);
      personas.push(p);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors.push(e);
    }
  }
  if (errors.length > 0) {
    const list = errors.map((e) => `  - ${e.message}`).join("\n");
    throw new ConfigError({
      file: dir,
      problem: `${errors.length} persona file(s) failed to load`,
      errors,
      message: `${errors.length} persona file(s) in ${dir} failed to load:\n${list}`,
    });
  }
  return personas;
}
