/**
 * How an addressed message reached the persona, said in its header instead of a bare "to you"
 * (which claimed more than was known): a private chat; a reply to the persona's message; an
 * @mention; its name said to it ("Mira, …": calls you by name) or only written in it (names
 * you — which alias, and whether only in passing); or the addressing call's guess.
 * A message that speaks to someone else as well — an @mention of another person, or another
 * person's name as its first word ("Bob, look at what Mira said") — says so, so a reply to the
 * persona aimed at someone else is not taken for a question to it. Worked out from the stored
 * message when the prompt is built: nothing on the inbound path.
 */
import type { AddressMatcher } from "../inbound/addressing";
import type { StoredMessage } from "../store/messages";
import type { ReplyContext } from "../base/types";
import { speakerRef, type Speaker } from "../context/speaker";
import type { SpeakerDirectory } from "../context/speaker-directory";

export interface MarkContext {
  readonly isDm: boolean;
  /** The persona's name: an alias other than it is named in the mark. */
  readonly personaName: string;
  readonly speakers: SpeakerDirectory;
  readonly names: AddressMatcher;
  /** A stored message of the chat by id (what a message replies to). */
  readonly lookup: (messageId: number) => StoredMessage | undefined;
  /** People in view (not the persona): whose first name opening a message speaks to them. */
  readonly present: readonly Speaker[];
}

/** The header mark of an addressed message (see the module comment). */
export function addressMark(m: StoredMessage, fetched: ReplyContext | undefined, c: MarkContext): string {
  if (c.isDm) return "to you";
  const self = c.speakers.self;
  const selfName = self.username?.toLowerCase();
  const mentions = m.mentions ?? [];
  const slice = (e: { offset: number; length: number }) =>
    m.text
      .slice(e.offset, e.offset + e.length)
      .replace(/^@/, "")
      .toLowerCase();
  const mentionsYou = mentions.some((e) =>
    e.type === "mentionname" ? e.userId === self.id : selfName !== undefined && slice(e) === selfName,
  );
  const repliedTo = m.replyToId !== undefined ? c.lookup(m.replyToId) : undefined;
  const repliesToYou =
    repliedTo !== undefined ? repliedTo.isAgent : fetched?.kind === "found" && fetched.isAgent;
  const name = c.names.nameMatch(m.text);
  const how = mentionsYou
    ? "@mentions you"
    : repliesToYou
      ? "replies to you"
      : name !== undefined
        ? `${name.spokenTo ? "calls you by name" : "names you"}${name.alias.toLowerCase() === c.personaName.toLowerCase() ? "" : ` as ${JSON.stringify(name.alias)}`}${name.explicit ? "" : " in passing"}`
        : "may be for you";
  if (mentionsYou) return how;
  const others = othersSpokenTo(m, c, slice);
  return others.length > 0 ? `${how}, but speaks to ${others.map(speakerRef).join(", ")}` : how;
}

/** People the message speaks to besides the persona: @mentioned, or named as its first word. */
function othersSpokenTo(
  m: StoredMessage,
  c: MarkContext,
  slice: (e: { offset: number; length: number }) => string,
): Speaker[] {
  const self = c.speakers.self;
  const out = new Map<string, Speaker>();
  for (const e of m.mentions ?? []) {
    const who =
      e.type === "mentionname"
        ? e.userId !== undefined
          ? c.speakers.byId(e.userId)
          : undefined
        : c.speakers.byUsername(slice(e));
    if (who !== undefined && who.id !== self.id) out.set(who.id, who);
  }
  const first = /^[\s"'«„“(]*([\p{L}][\p{L}\p{M}'-]*)\s*[,:!]/u.exec(m.text)?.[1]?.toLowerCase();
  if (first !== undefined && c.names.nameMatch(first) === undefined) {
    const hit = c.present.find(
      (p) => p.id !== self.id && p.id !== m.senderId && p.nickname.split(/\s+/)[0]!.toLowerCase() === first,
    );
    if (hit !== undefined) out.set(hit.id, hit);
  }
  return [...out.values()];
}
