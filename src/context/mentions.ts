/**
 * Mentions inside a message's text, rewritten from Telegram's entities to speaker references:
 * `@ann` (a `mention` entity) → `[Ann Lee](tg:@ann)`; a `mentionname` entity (Telegram's
 * text_mention: a name linked to a user, who may have no username) → `[Ann](tg:user/123)`.
 *
 * Entity offsets and lengths are UTF-16 code units (Telegram's, and JavaScript's string indices),
 * never code points: an emoji before a mention shifts it by two.
 */
import type { MessageEntity } from "../base/types";
import { neutralizeReferences, sanitizeText } from "./sanitize";
import { speakerRef, validUsername, type Speaker } from "./speaker";

/** Entity types that name a person. */
const MENTION_TYPES: ReadonlySet<string> = new Set(["mention", "mentionname"]);

/** Finds who a mention names: by username (`mention`) or by user id (`mentionname`). */
export interface MentionResolver {
  byUsername(username: string): Speaker | undefined;
  byId(userId: string): Speaker | undefined;
}

/** The mention entities of a message (what the store keeps); undefined when there are none. */
export function mentionEntities(entities: readonly MessageEntity[]): MessageEntity[] | undefined {
  if (entities.length === 0) return undefined;
  const out = entities.filter((e) => MENTION_TYPES.has(e.type));
  return out.length > 0 ? out : undefined;
}

/**
 * `text` with each mention entity replaced by a speaker reference. Entities that overlap an
 * earlier one or fall outside the text are ignored; a `mention` whose slice is not an @username
 * stays as written. The text between references is sanitised here and any reference syntax a
 * person typed in it is neutralised (`[Bob](tg:user/42)` → `[Bob]\(tg:user/42)`,
 * sanitize.ts), so the only references in the result are the ones built from entities. The
 * envelope sanitises the whole again (references are built from sanitised parts and survive it).
 */
export function normalizeMentions(
  text: string,
  entities: readonly MessageEntity[] | undefined,
  resolve: MentionResolver,
): string {
  if (entities === undefined || entities.length === 0) return userText(text);
  const sorted = [...entities].filter((e) => MENTION_TYPES.has(e.type)).sort((a, b) => a.offset - b.offset);
  let out = "";
  let at = 0;
  for (const e of sorted) {
    const start = e.offset;
    const end = e.offset + e.length;
    if (
      !Number.isInteger(start) ||
      !Number.isInteger(end) ||
      start < at ||
      e.length <= 0 ||
      end > text.length
    )
      continue;
    const slice = text.slice(start, end);
    const ref = referenceFor(e, slice, resolve);
    if (ref === undefined) continue;
    out += userText(text.slice(at, start)) + ref;
    at = end;
  }
  return out + userText(text.slice(at));
}

/** A stretch of a person's words: sanitised, with typed reference syntax neutralised. */
function userText(s: string): string {
  return s === "" ? s : neutralizeReferences(sanitizeText(s));
}

function referenceFor(e: MessageEntity, slice: string, resolve: MentionResolver): string | undefined {
  if (e.type === "mentionname") {
    if (e.userId === undefined) return undefined;
    const known = resolve.byId(e.userId);
    // The linked text is how the sender named the person; keep it when the user is unknown.
    return speakerRef(known ?? { id: e.userId, nickname: slice, bot: false });
  }
  const username = validUsername(slice.startsWith("@") ? slice : undefined);
  if (username === undefined) return undefined;
  return speakerRef(
    resolve.byUsername(username) ?? { id: "0", username, nickname: `@${username}`, bot: false },
  );
}
