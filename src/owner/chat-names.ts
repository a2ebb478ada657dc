import type { ChatInfo } from "../store/chats";

/** What a chat name given to an owner command resolved to. */
export type ChatLookup =
  | { readonly kind: "found"; readonly chat: ChatInfo }
  | { readonly kind: "none" }
  | { readonly kind: "ambiguous"; readonly candidates: readonly ChatInfo[] };

const fold = (s: string) => s.normalize("NFKC").toLowerCase().trim();

/**
 * Find a chat the persona knows by its id (`-100123`, `42`), its @username (the group's, or the
 * DM partner's), or a part of its title (a DM's title is the partner's name), ignoring case.
 * Ids and @usernames name one chat each and always work. A text names a chat only when exactly
 * one chat fits it, exactly or in part: an exact title does not beat a partial one (a stranger
 * who calls themselves "sand" must not catch `/pause sand` meant for "Sandbox"), so several fits
 * are ambiguous — the exact ones listed first — and the command acts on none.
 */
export function findChat(name: string, chats: readonly ChatInfo[]): ChatLookup {
  const q = name.trim();
  const byId = chats.find((c) => c.chatId === q);
  if (byId) return { kind: "found", chat: byId };
  if (q.startsWith("@")) {
    const u = fold(q.slice(1));
    const hit = chats.find((c) => c.username !== undefined && fold(c.username) === u);
    return hit ? { kind: "found", chat: hit } : { kind: "none" };
  }
  const f = fold(q);
  if (f === "") return { kind: "none" };
  const exact = chats.filter(
    (c) =>
      (c.title !== undefined && fold(c.title) === f) || (c.username !== undefined && fold(c.username) === f),
  );
  const partial = chats.filter(
    (c) => !exact.includes(c) && c.title !== undefined && fold(c.title).includes(f),
  );
  const fits = [...exact, ...partial];
  if (fits.length === 1) return { kind: "found", chat: fits[0]! };
  if (fits.length === 0) return { kind: "none" };
  return { kind: "ambiguous", candidates: fits };
}

/** `Sandbox (-100123)`, `Alice (private chat, @alice, 42)`: how replies name a chat. */
export function describeChat(c: ChatInfo): string {
  const tags = [
    c.chatType === "dm" ? "private chat" : undefined,
    c.username ? `@${c.username}` : undefined,
    c.chatId,
  ]
    .filter(Boolean)
    .join(", ");
  return c.title ? `${c.title} (${tags})` : tags;
}
