/**
 * The persona's safety policies: who may talk to it in private, which groups it answers in,
 * and the caps against cost and abuse. Parsed from persona-file headings (see persona.ts).
 * Defaults: DMs open, every group, 20 answers per group per hour (one person at most half of a
 * group's) and 60 per private chat, 2M tokens a day (strangers' DMs at most a fifth of it, one
 * person a quarter, one chat half, and a quarter kept for the persona's contacts), 30 min
 * silence after the owner writes — the caps bound what a stranger can cost, and the shares keep
 * one person from spending what belongs to everyone.
 */
import { z } from "zod";
import { ConfigError } from "./config-error";
import {
  listItems,
  parseNumber,
  quoteValue,
  singleLine,
  type NumberRule,
  type ValueSource,
} from "./persona-values";

/**
 * Who gets an answer in private:
 * - `open`: anyone (the default: a persona answers its DMs, bounded by the caps);
 * - `contacts`: users in the account's contact list;
 * - `allowlist`: only the users listed under `# Allowed Users`;
 * - `off`: nobody (DMs are stored, never answered).
 */
export type DmPolicy = "open" | "contacts" | "allowlist" | "off";
const DM_POLICIES: readonly DmPolicy[] = ["open", "contacts", "allowlist", "off"];

/** A user or chat named in a persona file: by id, or by @username (stored lower-case, no @). */
export type PeerRef = { readonly id: string } | { readonly username: string };

/** The policy fields of a persona. */
export interface PersonaPolicy {
  readonly dm: DmPolicy;
  /** Users whose DMs are answered under `allowlist`. */
  readonly allowedUsers: readonly PeerRef[];
  /** Groups the persona answers in; empty = every group it is in. */
  readonly allowedGroups: readonly PeerRef[];
  /** Answers (planning rounds) per group in any sliding hour. */
  readonly answersPerHour: number;
  /** Answers per private chat in any sliding hour (a lively DM is one person talking to the persona). */
  readonly dmAnswersPerHour: number;
  /** In a group: the percentage of `answersPerHour` one person's messages may use. */
  readonly personShare: number;
  /** Tokens (prompt + output + thinking) the persona may spend per UTC day. */
  readonly dailyTokenBudget: number;
  /** The percentage of `dailyTokenBudget` strangers' DMs (not contacts, not allowlisted) may spend together. */
  readonly strangerTokenShare: number;
  /** The percentage of `dailyTokenBudget` the calls for one person (planning, addressing, media) may spend per UTC day. */
  readonly personTokenShare: number;
  /** The percentage of `dailyTokenBudget` the calls in one chat may spend per UTC day. */
  readonly chatTokenShare: number;
  /**
   * The percentage of `dailyTokenBudget` kept for the persona's people (contacts, `# Allowed
   * Users`): calls for anyone else stop once the day's total leaves only this much.
   */
  readonly contactsReserve: number;
  /** Minutes the persona stays silent in a chat after its owner wrote there from another device. */
  readonly takeoverSilenceMin: number;
}

/** Defaults and bounds of the numeric policy fields. */
export const POLICY_LIMITS = {
  answersPerHour: { default: 20, min: 1, max: 3600, unit: "answers", integer: true },
  dmAnswersPerHour: { default: 60, min: 1, max: 3600, unit: "answers", integer: true },
  personShare: { default: 50, min: 1, max: 100, unit: "percent", integer: true },
  dailyTokenBudget: { default: 2_000_000, min: 1000, max: 1_000_000_000, unit: "tokens", integer: true },
  strangerTokenShare: { default: 20, min: 0, max: 100, unit: "percent", integer: true },
  personTokenShare: { default: 25, min: 1, max: 100, unit: "percent", integer: true },
  chatTokenShare: { default: 50, min: 1, max: 100, unit: "percent", integer: true },
  contactsReserve: { default: 25, min: 0, max: 100, unit: "percent", integer: true },
  takeoverSilenceMin: { default: 30, min: 0, max: 10_080, unit: "minutes", integer: true },
} as const satisfies Record<string, NumberRule & { default: number }>;

export const DEFAULT_POLICY: PersonaPolicy = Object.freeze({
  dm: "open",
  allowedUsers: Object.freeze([]),
  allowedGroups: Object.freeze([]),
  answersPerHour: POLICY_LIMITS.answersPerHour.default,
  dmAnswersPerHour: POLICY_LIMITS.dmAnswersPerHour.default,
  personShare: POLICY_LIMITS.personShare.default,
  dailyTokenBudget: POLICY_LIMITS.dailyTokenBudget.default,
  strangerTokenShare: POLICY_LIMITS.strangerTokenShare.default,
  personTokenShare: POLICY_LIMITS.personTokenShare.default,
  chatTokenShare: POLICY_LIMITS.chatTokenShare.default,
  contactsReserve: POLICY_LIMITS.contactsReserve.default,
  takeoverSilenceMin: POLICY_LIMITS.takeoverSilenceMin.default,
});

/** `# DM Policy`: one of open, contacts, allowlist, off. */
export function parseDmPolicy(src: ValueSource, raw: string): DmPolicy {
  const v = singleLine(src, raw).toLowerCase();
  if ((DM_POLICIES as readonly string[]).includes(v)) return v as DmPolicy;
  throw new ConfigError({
    file: src.file,
    field: src.field,
    problem: `unknown value ${quoteValue(raw)} (expected one of: ${DM_POLICIES.join(", ")})`,
  });
}

const usernameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{3,31}$/);
const LINK_RE = /^(?:https?:\/\/)?(?:t\.me|telegram\.me)\//i;

/**
 * `# Allowed Users` / `# Allowed Groups`: one per line, an id or an @username (a t.me link is
 * accepted too). User ids are positive; group ids are Telegram's marked ids (`-123` for a basic
 * group, `-100…` for a supergroup), as `/status` and the logs show them.
 */
export function parsePeerList(src: ValueSource, raw: string, kind: "user" | "group"): PeerRef[] {
  const out: PeerRef[] = [];
  const idRe = kind === "user" ? /^\d{1,20}$/ : /^-\d{1,20}$/;
  const expected =
    kind === "user"
      ? "a user id (digits) or an @username"
      : "a group id (-123 or -100123, as the logs show it) or the group's @username";
  for (const item of listItems(raw)) {
    let ref: PeerRef | undefined;
    if (idRe.test(item)) ref = { id: item };
    else {
      const name = item.replace(LINK_RE, "").replace(/^@/, "").replace(/\/+$/, "");
      if ((item.startsWith("@") || LINK_RE.test(item)) && usernameSchema.safeParse(name).success)
        ref = { username: name.toLowerCase() };
    }
    if (!ref)
      throw new ConfigError({
        file: src.file,
        field: src.field,
        problem: `bad entry ${quoteValue(item)} (expected ${expected})`,
      });
    out.push(ref);
  }
  return out;
}

/** A numeric policy field within its bounds (numbers.ts's forms; a percentage may carry its `%`). */
export function parsePolicyNumber(
  src: ValueSource,
  raw: string,
  rule: NumberRule & { default: number },
): number {
  return parseNumber(src, rule.unit === "percent" ? raw.trim().replace(/\s*%$/, "") : raw, rule);
}

/** Whether `ref` names this user or chat. */
export function matchesPeer(ref: PeerRef, id: string, username: string | undefined): boolean {
  return "id" in ref ? ref.id === id : username !== undefined && ref.username === username.toLowerCase();
}

/** Answers per hour one person may have in a group: their share of the chat's cap, at least 1. */
export function personCap(policy: Pick<PersonaPolicy, "answersPerHour" | "personShare">): number {
  return Math.max(1, Math.floor((policy.answersPerHour * policy.personShare) / 100));
}

/** Tokens per UTC day strangers' DMs may spend together. */
export function strangerTokenCap(
  policy: Pick<PersonaPolicy, "dailyTokenBudget" | "strangerTokenShare">,
): number {
  return Math.floor((policy.dailyTokenBudget * policy.strangerTokenShare) / 100);
}

/** A percentage of the daily token budget, in tokens. */
export function budgetShare(policy: Pick<PersonaPolicy, "dailyTokenBudget">, percent: number): number {
  return Math.floor((policy.dailyTokenBudget * percent) / 100);
}
