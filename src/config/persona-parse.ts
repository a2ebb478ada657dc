/**
 * Parsing one persona file's text into a Persona: every field through its parser, every problem
 * of the file gathered and told at once (the file format is described in persona.ts).
 */
import { ConfigError } from "./config-error";
import { loadRolePrompts } from "./persona-prompts";
import { splitSections } from "./persona-sections";
import {
  DEFAULT_POLICY,
  parseDmPolicy,
  parsePeerList,
  parsePolicyNumber,
  POLICY_LIMITS,
  type PersonaPolicy,
} from "./persona-policy";
import { parseBusy, parseSleep } from "./persona-rhythm";
import { parseModels } from "./llm-routes";
import { DEFAULT_LOOKUPS, LOOKUP_LIMITS, parseLookUpChats, parseLookUpLevel } from "./persona-lookups";
import { DEFAULT_VOICE, parseVoice } from "./persona-voice";
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
  type NumberRule,
} from "./persona-values";
import {
  INTENTION_LIMITS,
  indexSections,
  PERSONA_ADDRESSING,
  PERSONA_TIMING,
  PERSONA_WINDOW,
  REQUIRED,
  WHEN_ASKED_MAX_CHARS,
  type FieldName,
} from "./persona-fields";
import type { Persona } from "./persona-type";

/** Options for {@link parsePersona}. */
export interface ParsePersonaOptions {
  /** The file name used in errors and kept on the persona. */
  readonly file: string;
  /** Directories where role prompts are looked up, in order. */
  readonly promptDirs: readonly string[];
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
