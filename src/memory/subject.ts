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
  /** A stored message of this chat by id. */
  readonly message: (messageId: number) => StoredMessage | undefined;
  /** The messages being answered, newest last. */
  readonly targets: readonly StoredMessage[];
  /** People present (see presentPeople) and their @usernames, to resolve "@name". */
  readonly present: readonly string[];
  readonly usernameOf: (userId: string) => string | undefined;
}

/**
 * The subject of a `remember` task from its `about`: "chat" → a note about the chat
 * (undefined); a message id ("57", "#57", 57) → that message's author; "@username" → the
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
  const id = /^#?(\d{1,12})$/.exec(a);
  if (id) {
    const m = c.message(Number(id[1]));
    return m && !m.isAgent ? m.senderId : undefined;
  }
  if (a.startsWith("@")) {
    const name = a.slice(1).toLowerCase();
    return c.present.find((u) => c.usernameOf(u)?.toLowerCase() === name);
  }
  return undefined;
}

/**
 * Who said a memory, from the messages being answered — never from the model, which a message
 * can talk into naming anyone: in a private chat its partner; in a group, when the memory is
 * about someone, the newest author of those messages who is *not* that person (so dave saying
 * "remember: alice's IBAN is …" is dave's statement, even if alice wrote in the same burst), else
 * the person themself; a chat note's teller is the newest author. Undefined when no person wrote
 * them.
 */
export function tellerOf(
  subject: string | undefined,
  c: Pick<SubjectContext, "chatId" | "isDm" | "targets">,
): string | undefined {
  if (c.isDm) return c.chatId;
  const authors = c.targets.filter((m) => !m.isAgent).map((m) => m.senderId);
  if (authors.length === 0) return undefined;
  const other = subject !== undefined ? [...authors].reverse().find((a) => a !== subject) : undefined;
  return (
    other ?? (subject !== undefined && authors.includes(subject) ? subject : authors[authors.length - 1])
  );
}
