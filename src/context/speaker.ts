/**
 * Speaker references: the one way the prompt names a person, in message headers, reply lines and
 * mentions inside text.
 *
 * `[nickname](tg:@username)`, or `[nickname](tg:user/<id>)` when the person has no username: the
 * reference always identifies someone, even a person Telegram only showed as an id. Nickname =
 * the display name > first/last name > @username > `user <id>`. Every part comes from Telegram
 * (untrusted) and is sanitised here; `[` `]` in a nickname become `(` `)`, so a name can never
 * close the reference early and forge another one.
 */
import type { EntityRecord } from "../store/entities";
import { neutralizeReferences, sanitizeLine } from "./sanitize";

/** Who wrote or reacted (a history item's sender), as far as the account knows. */
export interface Speaker {
  /** Telegram's id (marked peer id as a string: users > 0, chats posting as themselves < 0). */
  readonly id: string;
  /** Public @username without `@`, when there is one. */
  readonly username?: string;
  /** The name shown for the person (see the module comment); never empty. */
  readonly nickname: string;
  readonly bot: boolean;
  /**
   * Written `[nickname]`, without its link: a private chat's partner, whose full reference the
   * chat part gives once (still bracketed, so nobody can pass for the persona's bare label).
   */
  readonly bare?: boolean;
}

/**
 * The label of the persona's own messages and reactions, in headers and reply lines: its name and
 * `(you)`, bare — every human is written as a reference `[name](tg:…)`, so no one named like the
 * persona can pass for it.
 */
export function selfLabel(self: Speaker): string {
  return `${safeNickname(self.nickname)} (you)`;
}
/** Nicknames are cut to this many code points: they repeat on every message. */
const NAME_MAX_CODE_POINTS = 64;

const ELLIPSIS = "...";
/** Telegram usernames: letters, digits and underscores (5–32; older and bot names may be shorter). */
const USERNAME_RE = /^[A-Za-z0-9_]{1,32}$/;
/** The stand-in name the inbound path stores for a sender it could not name (pipeline, parse). */
const STAND_IN_RE = /^user -?\d+$/;

/** Cuts to `max` code points (never inside a surrogate pair) and marks the cut with "...". */
export function capCodePoints(s: string, max: number): string {
  const cps = Array.from(s);
  if (cps.length <= max) return s;
  // A cut emoji sequence may end in a dangling joiner; drop it along with trailing spaces.
  return (
    cps
      .slice(0, max)
      .join("")
      .replace(/[\s\u200D]+$/u, "") + ELLIPSIS
  );
}

/**
 * A name as the prompt shows it. `·` separates name and time in a header, and `[ ]` delimit a
 * reference, so they are replaced.
 */
function safeNickname(raw: string): string {
  const name = capCodePoints(
    neutralizeReferences(
      sanitizeLine(raw)
        .replace(/\u00B7/gu, ".")
        .replace(/\[/gu, "(")
        .replace(/\]/gu, ")"),
    ),
    NAME_MAX_CODE_POINTS,
  );
  if (name === "") return "(no name)";
  return name;
}

/** A username as Telegram allows it (without `@`), else undefined. */
export function validUsername(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const u = raw.startsWith("@") ? raw.slice(1) : raw;
  return USERNAME_RE.test(u) ? u : undefined;
}

/** The reference `[nickname](tg:@username)` / `[nickname](tg:user/<id>)`; `[nickname]` for a bare speaker. */
export function speakerRef(s: Speaker): string {
  if (s.bare === true) return `[${safeNickname(s.nickname)}]`;
  const username = validUsername(s.username);
  const id = /^-?\d+$/.test(s.id) ? s.id : "0";
  return `[${safeNickname(s.nickname)}](tg:${username !== undefined ? `@${username}` : `user/${id}`})`;
}

/** True for the stand-in name stored for a sender that could not be named ("user 123"). */
function isStandInName(name: string): boolean {
  return STAND_IN_RE.test(name);
}

/**
 * A speaker from what is known: the entity store's record (names, username, bot flag) and the
 * name shown on the message (the display name, e.g. a chat's title for an anonymous admin).
 */
export function speakerOf(
  id: string,
  shownName: string | undefined,
  entity: EntityRecord | undefined,
): Speaker {
  const username = validUsername(entity?.username);
  const full = [entity?.firstName, entity?.lastName].filter(Boolean).join(" ").trim() || entity?.title;
  const shown =
    shownName !== undefined && shownName.trim() !== "" && !isStandInName(shownName) ? shownName : undefined;
  const nickname = shown ?? full ?? (username !== undefined ? `@${username}` : `user ${id}`);
  return { id, nickname, bot: entity?.bot ?? false, ...(username !== undefined ? { username } : {}) };
}
