/**
 * Who is who, for one prompt: message senders and mentioned people as speakers, from the entity
 * store (memory only: no query, no request). The persona itself is named by its persona name.
 */
import type { EntityRecord } from "../store/entities";
import type { MentionResolver } from "./mentions";
import { speakerOf, validUsername, type Speaker } from "./speaker";

/** What the directory reads: EntityStore satisfies it. */
export interface EntityLookup {
  get(peerId: string): EntityRecord | undefined;
  findByUsername(username: string): EntityRecord | undefined;
}

export interface SpeakerDirectory extends MentionResolver {
  /** The speaker of a stored message (its sender id and the name stored with it). */
  sender(senderId: string, shownName: string | undefined): Speaker;
  /** The persona. */
  readonly self: Speaker;
}

/** A directory over the entity store; `self` is the persona's account id and name. */
export function speakerDirectory(
  entities: EntityLookup,
  self: { readonly id: string; readonly name: string },
): SpeakerDirectory {
  const selfUsername = validUsername(entities.get(self.id)?.username);
  const me: Speaker = {
    id: self.id,
    nickname: self.name,
    bot: false,
    ...(selfUsername !== undefined ? { username: selfUsername } : {}),
  };
  const sender = (id: string, shown: string | undefined): Speaker =>
    id === self.id ? me : speakerOf(id, shown, entities.get(id));
  return {
    self: me,
    sender,
    byId: (id) =>
      id === self.id ? me : entities.get(id) ? speakerOf(id, undefined, entities.get(id)) : undefined,
    byUsername: (u) => {
      if (selfUsername !== undefined && u.toLowerCase() === selfUsername.toLowerCase()) return me;
      const e = entities.findByUsername(u);
      return e ? speakerOf(e.peerId, undefined, e) : undefined;
    },
  };
}
