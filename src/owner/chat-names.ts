import type { ChatInfo } from "../store/messages";

/** What a chat name given to an owner command resolved to. */
export type ChatLookup =
  | { readonly kind: "found"; readonly chat: ChatInfo }
  | { readonly kind: "none" }
  | { readonly kind: "ambiguous"; readonly candidates: readonly ChatInfo[] };

const fold = (s: string) => s.normalize("NFKC").toLowerCase().trim();

/**
 * Find a chat the persona knows by its id (`-100123`, `42`), its @username (the group's, or the
 * DM partner's), or a part of its title (a DM's title is the partner's name), ignoring case.
 * An exact title beats partial ones; several partial matches are ambiguous.
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
  const exact = chats.filter((c) => c.title !== undefined && fold(c.title) === f);
  if (exact.length === 1) return { kind: "found", chat: exact[0]! };
  const partial = exact.length > 1 ? exact : chats.filter((c) => (c.title !== undefined && fold(c.title).includes(f)) || (c.username !== undefined && fold(c.username) === f));
  if (partial.length === 1) return { kind: "found", chat: partial[0]! };
  if (partial.length === 0) return { kind: "none" };
  return { kind: "ambiguous", candidates: partial };
}

/** `Sandbox (-100123)`, `Alice (@alice, 42)`: how replies name a chat. */
export function describeChat(c: ChatInfo): string {
  const tags = [c.username ? `@${c.username}` : undefined, c.chatId].filter(Boolean).join(", ");
  return c.title ? `${c.title} (${tags})` : tags;
}
