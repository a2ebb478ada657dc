/**
 * The Persona type: what one persona file parses into (persona-parse.ts), as every room reads it.
 */
import type { RolePrompt } from "./persona-prompts";
import type { PersonaPolicy } from "./persona-policy";
import type { Rhythm } from "./persona-rhythm";
import type { LlmRoutes } from "./llm-routes";
import type { LookUpPolicy } from "./persona-lookups";
import type { VoiceSetting } from "./persona-voice";
import type { StickerRef, GroupMode } from "./persona-values";

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
