/**
 * @mention detection the way Telegram's server does it: entities for every `@handle` in the
 * text, and the per-account `mentioned` flag.
 */
import { Api } from "telegram";
import { fromLong, toLong } from "./long";

/** One `@handle` occurrence (offsets in UTF-16 code units, like TL entities). */
interface MentionSpan {
  readonly offset: number;
  readonly length: number;
  /** The handle without "@", lower-cased. */
  readonly handle: string;
}

// A handle starts after a non-word character (so "mail@example.com" is not a mention) and is a
// Telegram username: letters, digits and underscores, at most 32 of them.
const MENTION_RE = /(^|[^A-Za-z0-9_@])@([A-Za-z0-9_]{1,32})(?![A-Za-z0-9_])/g;

/** Every `@handle` in `text`. */
function findMentions(text: string): MentionSpan[] {
  if (!text.includes("@")) return [];
  const spans: MentionSpan[] = [];
  for (const m of text.matchAll(MENTION_RE)) {
    const lead = m[1] ?? "";
    const handle = m[2] ?? "";
    spans.push({
      offset: (m.index ?? 0) + lead.length,
      length: handle.length + 1,
      handle: handle.toLowerCase(),
    });
  }
  return spans;
}

/**
 * The entities Telegram stores for a message: the caller's own entities (with
 * InputMessageEntityMentionName turned into MessageEntityMentionName, as the server does) plus a
 * MessageEntityMention for every detected @handle that no given entity already covers.
 */
export function normaliseEntities(
  text: string,
  given: readonly Api.TypeMessageEntity[] | undefined,
  resolveInputUser: (input: Api.TypeInputUser) => number | undefined,
): Api.TypeMessageEntity[] {
  const out: Api.TypeMessageEntity[] = [];
  for (const e of given ?? []) {
    if (e instanceof Api.InputMessageEntityMentionName) {
      const userId = resolveInputUser(e.userId);
      if (userId === undefined) continue;
      out.push(
        new Api.MessageEntityMentionName({ offset: e.offset, length: e.length, userId: toLong(userId) }),
      );
    } else {
      out.push(e);
    }
  }
  for (const span of findMentions(text)) {
    // Formatting entities (bold, italic…) may overlap a mention; only another mention covers it.
    const covered = out.some(
      (e) =>
        (e instanceof Api.MessageEntityMention || e instanceof Api.MessageEntityMentionName) &&
        e.offset < span.offset + span.length &&
        span.offset < e.offset + e.length,
    );
    if (!covered) out.push(new Api.MessageEntityMention({ offset: span.offset, length: span.length }));
  }
  return out.sort((a, b) => a.offset - b.offset);
}

/** True when `text`/`entities` mention `username` (case-insensitive) or `userId` by name entity. */
export function mentionsUser(
  text: string,
  entities: readonly Api.TypeMessageEntity[],
  userId: number,
  username: string | undefined,
): boolean {
  for (const e of entities) {
    if (e instanceof Api.MessageEntityMentionName && fromLong(e.userId) === userId) return true;
  }
  if (username === undefined) return false;
  const handle = username.toLowerCase();
  return findMentions(text).some((span) => span.handle === handle);
}
