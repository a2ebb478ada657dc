/**
 * The sandbox's input grammar: one typed line is a member's message (in the group, a reply, a
 * DM, with media), a member typing or reacting, the owner writing (in Saved Messages: the owner
 * commands; in the group or a DM: a takeover), or a control line for the persona's process and
 * connection. Pure text in, a command out; what a command does is the world's (world.ts) and
 * the REPL's (repl.ts).
 *
 * Control lines are one table (CONTROL_LINES): a new one is a row there (its help text, and
 * `arg` when it takes an argument, which arrives as `arg` in the command) and a case in the
 * REPL's `control`.
 */
import { MEDIA_FORMS } from "./media";

/** A control line: what it does, and the argument it takes (absent: none). */
interface ControlSpec {
  readonly help: string;
  readonly arg?: string;
}

/** Control lines: what happens to the persona's process and connection. */
const CONTROL_LINES = {
  help: { help: "list the input forms and control lines" },
  offline: { help: "the persona's connection drops (same process); people keep writing" },
  online: { help: "the connection comes back; the persona catches up on what it missed" },
  kill: { help: "the persona's process dies abruptly, as with kill -9; the emulated world keeps going" },
  start: { help: "a fresh process on the same database, catching up" },
  advance: {
    help: "move time forward (9h, 90m, 1d, 1h30m): Telegram's and the persona's; what falls due on the way happens, in order",
    arg: "<duration>",
  },
  now: { help: "the persona's local time, and whether it is awake, busy or asleep" },
} as const satisfies Record<string, ControlSpec>;
export type ControlLine = keyof typeof CONTROL_LINES;
const spec = (name: ControlLine): ControlSpec => CONTROL_LINES[name];

/** One input line, parsed. */
export type SandboxCommand =
  | {
      readonly kind: "post";
      readonly member: string;
      readonly text: string;
      readonly replyTo?: number;
      readonly media?: string;
    }
  | { readonly kind: "dm"; readonly member: string; readonly text: string; readonly media?: string }
  /** `alice typing` / `dm carol typing`: Telegram shows the member typing there (~6 s); `… stops typing` cancels it. */
  | { readonly kind: "typing"; readonly member: string; readonly dm: boolean; readonly stop: boolean }
  /** `bob reacts 👍 to #12` / `dm carol reacts ❤ to #5`; `bob unreacts #12` takes it back. */
  | {
      readonly kind: "react";
      readonly member: string;
      readonly dm: boolean;
      readonly messageId: number;
      readonly emoji: string | null;
    }
  /**
   * The account's owner writes from another device: in Saved Messages (`owner: /status`, the
   * owner commands), or in the group or a member's DM (a takeover: the persona goes quiet there).
   */
  | {
      readonly kind: "owner";
      readonly where: "saved" | "group" | "dm";
      /** The member whose DM it is (where "dm"). */
      readonly member?: string;
      readonly text: string;
    }
  | { readonly kind: "control"; readonly name: ControlLine; readonly arg?: string }
  /** A control line with an argument it does not take, or without one it needs. */
  | { readonly kind: "bad-control"; readonly name: ControlLine; readonly problem: string }
  | { readonly kind: "unknown-control"; readonly name: string };

/** `alice: hi`, `bob > 12: hi`, `dm carol: hi`, `alice typing`, `/offline`…; undefined for anything else. */
export function parseSandboxLine(line: string): SandboxCommand | undefined {
  const owner = /^\s*owner(?:\s+in\s+(group|dm\s+(\w+)))?\s*:\s?(.*)$/i.exec(line);
  if (owner) {
    const where = owner[1] === undefined ? "saved" : owner[2] !== undefined ? "dm" : "group";
    return {
      kind: "owner",
      where,
      ...(owner[2] !== undefined ? { member: owner[2].toLowerCase() } : {}),
      text: owner[3]!,
    };
  }
  const typing = /^\s*(dm\s+)?(\w+)\s+(stops\s+)?typing\s*(?:\.\.\.|…)?\s*$/i.exec(line);
  if (typing)
    return {
      kind: "typing",
      member: typing[2]!.toLowerCase(),
      dm: typing[1] !== undefined,
      stop: typing[3] !== undefined,
    };
  const react = /^\s*(dm\s+)?(\w+)\s+reacts\s+(\S+)\s+to\s+#?(\d+)\s*$/i.exec(line);
  if (react)
    return {
      kind: "react",
      member: react[2]!.toLowerCase(),
      dm: react[1] !== undefined,
      messageId: Number(react[4]),
      emoji: react[3]!,
    };
  const unreact = /^\s*(dm\s+)?(\w+)\s+unreacts\s+#?(\d+)\s*$/i.exec(line);
  if (unreact)
    return {
      kind: "react",
      member: unreact[2]!.toLowerCase(),
      dm: unreact[1] !== undefined,
      messageId: Number(unreact[3]),
      emoji: null,
    };
  const control = /^\s*\/(\S+)(?:\s+(.*?))?\s*$/.exec(line);
  if (control) {
    const name = control[1]!.toLowerCase();
    if (!(name in CONTROL_LINES)) return { kind: "unknown-control", name: control[1]! };
    const c = name as ControlLine;
    const arg = control[2] === undefined || control[2] === "" ? undefined : control[2];
    const takes = spec(c).arg;
    if (arg !== undefined && takes === undefined)
      return { kind: "bad-control", name: c, problem: `/${c} takes no argument (got "${arg}")` };
    if (arg === undefined && takes !== undefined)
      return { kind: "bad-control", name: c, problem: `/${c} needs ${takes}` };
    return { kind: "control", name: c, ...(arg !== undefined ? { arg } : {}) };
  }
  // Each form may carry media in brackets before the colon (`alice [photo cat.jpg]: caption`);
  // with media the colon and caption are optional.
  const media = (spec: string | undefined, text: string | undefined) =>
    spec !== undefined ? { text: text ?? "", media: spec.trim() } : text !== undefined ? { text } : undefined;
  const dm = /^\s*dm\s+(\w+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/i.exec(line);
  const dmBody = dm && media(dm[2], dm[3]);
  if (dm && dmBody) return { kind: "dm", member: dm[1]!.toLowerCase(), ...dmBody };
  const reply = /^\s*(\w+)\s*>\s*#?(\d+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/.exec(line);
  const replyBody = reply && media(reply[3], reply[4]);
  if (reply && replyBody)
    return { kind: "post", member: reply[1]!.toLowerCase(), replyTo: Number(reply[2]), ...replyBody };
  const post = /^\s*(\w+)\s*(?:\[([^\]]*)\])?\s*(?::\s?(.*))?$/.exec(line);
  const postBody = post && media(post[2], post[3]);
  if (post && postBody) return { kind: "post", member: post[1]!.toLowerCase(), ...postBody };
  return undefined;
}

/** The answer to a line that is no form at all, naming the members that exist. */
export function expectedForms(members: readonly string[]): string {
  return `? expected "<member>: <text>", "<member> > <id>: <text>", "dm <member>: <text>", "[dm] <member> [stops] typing", "[dm] <member> reacts <emoji> to #<id>", "owner: <text>" or "owner in group|dm <member>: <text>" with member one of ${members.join(", ")} (/help lists every form)`;
}

/** The answer to `/something` that is no control line. */
export function unknownControl(name: string): string {
  return `? unknown control line "/${name}"; they are: ${Object.keys(CONTROL_LINES)
    .map((c) => `/${c}`)
    .join(", ")} (an owner command goes in Saved Messages: "owner: /${name}")`;
}

/** What /help prints (and the script's --help lists): every input form and control line. */
export function helpText(): string {
  return [
    "Input, one line each (members: alice, bob, carol):",
    "  alice: hello            alice posts in the group",
    "  bob > 12: indeed        bob replies to message #12",
    "  dm carol: psst          carol writes to the persona directly",
    "  alice [photo samples/photo.jpg]: look    a photo with a caption (any form takes [media] before the colon)",
    "  bob [sticker Cats 😺]   a sticker (the set is created in the emulated Telegram if it is new)",
    "  dm carol [voice samples/voice.ogg]       a voice note in carol's DM",
    `  media forms: ${MEDIA_FORMS}`,
    "  alice typing            alice is shown typing in the group (~6 s; the persona waits for her, bounded)",
    '  dm carol typing         carol is shown typing in her DM; "alice stops typing" cancels it',
    '  bob reacts 👍 to #12    bob reacts to message #12 ("dm carol reacts ❤ to #5" in her DM; "bob unreacts #12" takes it back)',
    "The account's owner (writing from another device):",
    "  owner: /status          in Saved Messages: every owner command (/help, /status, /pause, /resume, /mode, /forget, /memories, /share, /unshare, /intentions, /cancel); the answer appears there",
    "  owner in group: I've got this    the owner writes in the group: a takeover (the persona stays quiet there for # Takeover Silence)",
    "  owner in dm carol: hi   the owner writes in carol's DM (a takeover there)",
    "Control lines:",
    ...Object.entries(CONTROL_LINES).map(
      ([k, v]: [string, ControlSpec]) => `  /${`${k}${v.arg ? ` ${v.arg}` : ""}`.padEnd(22)} ${v.help}`,
    ),
  ].join("\n");
}
