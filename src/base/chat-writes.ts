/**
 * What the account may send in a group, as the chat's objects tell it (Telegram's
 * `chatBannedRights`: `default_banned_rights` for every member but admins, her own
 * `banned_rights` in a supergroup with its `until_date`; a supergroup's `slowmode_enabled`). Read
 * from every full chat object that arrives, no request of its own.
 */
export interface ChatWrites {
  /** Forbidden to every member (the chat's default bans); admins are exempt, so absent for them. */
  readonly byDefault: readonly WriteKind[];
  /** Forbidden to her alone (a restriction), until `ownUntil`. */
  readonly own: readonly WriteKind[];
  /** When her own restriction lifts (ms); absent: until an admin lifts it. */
  readonly ownUntil?: number;
  /** Slow mode is on (and she is not an admin): one message per window. */
  readonly slowmode: boolean;
  /**
   * She may write in a closed forum topic: the supergroup's creator, or an admin with the
   * `manage_topics` right (TDLib's forumTopicInfo.is_closed; docs/telegram-facts.md).
   */
  readonly topics?: boolean;
}

/** A chat she may not write in at all (removed from it, it is gone, a DM partner's account was deleted). */
export const NO_WRITES: ChatWrites = { byDefault: ["all"], own: [], slowmode: false };

/** What a message can be: plain text, a sticker, a voice message. (`all`: nothing at all.) */
export type WriteKind = "all" | "text" | "sticker" | "voice";

/** What she may send there now: text, stickers, voice messages (all false: she may not write at all), slow mode. */
export function mayWrite(
  w: ChatWrites | undefined,
  now: number,
): {
  readonly text: boolean;
  readonly sticker: boolean;
  readonly voice: boolean;
  readonly slowmode: boolean;
} {
  if (!w) return { text: true, sticker: true, voice: true, slowmode: false };
  const own = w.ownUntil === undefined || w.ownUntil > now ? w.own : [];
  const banned = new Set([...w.byDefault, ...own]);
  const all = banned.has("all");
  return {
    text: !all && !banned.has("text"),
    sticker: !all && !banned.has("sticker"),
    voice: !all && !banned.has("voice"),
    slowmode: w.slowmode,
  };
}
