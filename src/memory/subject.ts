/**
 * Who a memory is about, and who is present in a conversation: the two questions memory
 * visibility turns on (see recall.ts).
 */
import type { StoredMessage } from "../store/messages";

/**
 * The people present in a lane's window: the authors of its messages (the persona left out),
 * the targets' authors first, then the most recent first. In a DM the partner always is.
 */
export function presentPeople(
  window: readonly StoredMessage[],
  targetIds: readonly number[],
  dm: { readonly chatId: string } | undefined,
): string[] {
  const out = new Set<string>();
  if (dm) out.add(dm.chatId);
  const targets = new Set(targetIds);
  for (const m of window) if (targets.has(m.messageId) && !m.isAgent) out.add(m.senderId);
  for (let k = window.length - 1; k >= 0; k--) {
    const m = window[k]!;
    if (!m.isAgent) out.add(m.senderId);
  }
  return [...out];
}

export interface SubjectContext {
  readonly chatId: string;
  readonly isDm: boolean;
  /** The persona's account id: what `about: "me"` is about. */
  readonly selfId: string;
  /** A stored message of this chat by id. */
  readonly message: (messageId: number) => StoredMessage | undefined;
  /** The messages being answered, newest last. */
  readonly targets: readonly StoredMessage[];
  /** People present (see presentPeople) and their @usernames, to resolve "@name". */
  readonly present: readonly string[];
  readonly usernameOf: (userId: string) => string | undefined;
  /**
   * A person by @username when nobody present has it (someone the account knows by it):
   * `about: "@alice"` is about alice even when she is not in the window.
   */
  readonly memberByUsername?: (username: string) => string | undefined;
}

/**
 * The subject of a `remember` task from its `about`: "chat" → a note about the chat
 * (undefined); "me" → the persona itself (its account id: what it said about itself); a message id ("57", "#57", 57) → that message's author; "@username" → the
 * present person with that username; absent → in a DM the partner, in a group the author of
 * the newest message being answered. Anything that does not resolve to a person (an unknown
 * message, the persona's own message, a username nobody here has) → a note about the chat, so
 * nothing is attributed to the wrong person.
 */
export function resolveSubject(about: string | undefined, c: SubjectContext): string | undefined {
  if (about === undefined || about.trim() === "") {
    if (c.isDm) return c.chatId;
    const last = [...c.targets].reverse().find((m) => !m.isAgent);
    return last?.senderId;
  }
  const a = about.trim();
  if (a.toLowerCase() === "chat") return undefined;
  if (a.toLowerCase() === "me") return c.selfId;
  const id = /^#?(\d{1,12})$/.exec(a);
  if (id) {
    const m = c.message(Number(id[1]));
    return m && !m.isAgent ? m.senderId : undefined;
  }
  if (a.startsWith("@")) {
    const name = a.slice(1).toLowerCase();
    return c.present.find((u) => c.usernameOf(u)?.toLowerCase() === name) ?? c.memberByUsername?.(name);
  }
  return undefined;
}

/**
 * Who said a memory: the author of the message it was said in — the one the plan names
 * (`from`), else the message being answered — never a guess from the other authors of a burst
 * (dave planting "alice's IBAN is …" and bob writing "lol" after it must not make it bob's). The
 * persona for what it said about itself, or for a fact its own message says; in a private chat
 * with no such message, its partner. Undefined when no message says who.
 */
export function tellerOf(
  subject: string | undefined,
  source: StoredMessage | undefined,
  c: { readonly chatId: string; readonly isDm: boolean; readonly selfId: string },
): string | undefined {
  if (subject !== undefined && subject === c.selfId) return subject;
  if (source) return source.isAgent ? c.selfId : source.senderId;
  return c.isDm ? c.chatId : undefined;
}

/** A person who may be spoken of, and the names they go by (first name, @username). */
export interface KnownPerson {
  readonly id: string;
  readonly names: readonly string[];
}

/**
 * The people `messages` speak of without having written them: @mentioned (a mention entity),
 * replied to, or named — a known person's first name or username as a whole word, in any case
 * ("cookies for carol's birthday?"). The persona and the messages' own authors are left out; the
 * order is the order found, at most `max`.
 */
export function peopleSpokenOf(
  messages: readonly StoredMessage[],
  o: {
    readonly selfId: string;
    /** A stored message by id (what a target replies to). */
    readonly message: (messageId: number) => StoredMessage | undefined;
    /** A user id by @username (the entity store). */
    readonly byUsername: (username: string) => string | undefined;
    /** People whose names are looked for in the texts. */
    readonly known: readonly KnownPerson[];
    readonly max?: number;
  },
): string[] {
  const authors = new Set(messages.map((m) => m.senderId));
  const out = new Set<string>();
  const add = (id: string | undefined) => {
    if (id !== undefined && id !== o.selfId && !authors.has(id)) out.add(id);
  };
  for (const m of messages) {
    for (const e of m.mentions ?? []) {
      if (e.type === "mentionname") add(e.userId);
      else add(o.byUsername(m.text.slice(e.offset, e.offset + e.length).replace(/^@/, "")));
    }
    if (m.replyToId !== undefined) {
      const to = o.message(m.replyToId);
      if (to && !to.isAgent) add(to.senderId);
    }
  }
  const text = messages.map((m) => m.text).join("\n");
  for (const p of o.known) {
    if (out.has(p.id) || authors.has(p.id) || p.id === o.selfId) continue;
    if (p.names.some((n) => [...n].length >= MIN_NAME && wholeWord(n).test(text))) add(p.id);
  }
  return [...out].slice(0, o.max ?? 6);
}

/** Names shorter than this are not looked for ("Al" would match too much). */
const MIN_NAME = 3;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
function wholeWord(name: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}_@])${escape(name)}(?![\\p{L}\\p{N}_])`, "iu");
}
