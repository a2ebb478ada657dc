/**
 * What members may send in a group or supergroup, as Telegram enforces it (core.telegram.org/
 * constructor/chatBannedRights — the flags are inverted: a set flag forbids — and
 * /api/rights): the chat's `default_banned_rights` for every member but admins, one member's own
 * `banned_rights` (a restriction, with `until_date`), and a supergroup's slow mode
 * (`slowmode_enabled` on the channel, `slowmode_seconds` on its full channel; a member who sent
 * a message waits that long before the next, `SLOWMODE_WAIT_<seconds left>`). A send refused by
 * a ban answers `CHAT_WRITE_FORBIDDEN` (no sending at all) or `CHAT_SEND_PLAIN_FORBIDDEN` /
 * `CHAT_SEND_STICKERS_FORBIDDEN` / `CHAT_SEND_VOICES_FORBIDDEN` / `CHAT_SEND_MEDIA_FORBIDDEN` (403).
 */
import { Api } from "telegram";
import { RpcFault } from "./rpc-fault";
import type { ChatRecord } from "./stored-message";

/** Banned rights (set = forbidden), as the emulator's scene speaks them. */
export interface EmuBans {
  readonly sendMessages?: boolean;
  readonly sendPlain?: boolean;
  readonly sendMedia?: boolean;
  readonly sendStickers?: boolean;
  readonly sendGifs?: boolean;
  /** Voice messages (`send_voices`, layer 158's split of `send_media`). */
  readonly sendVoices?: boolean;
  /** A member's restriction lifts at this time (ms); absent: until lifted. */
  readonly until?: number;
}

/** A chat's restrictions, kept on its record. */
interface EmuRestrictions {
  defaultBans?: EmuBans;
  readonly memberBans: Map<number, EmuBans>;
  /** Supergroups: slow mode's window in seconds (0: off). */
  slowmodeSec: number;
  /** When each member last sent there (ms): slow mode's clock. */
  readonly lastSendAt: Map<number, number>;
  /** Accounts that are admins there (default bans and slow mode do not apply to them). */
  readonly admins: Set<number>;
  /** Admins without the `manage_topics` right (a closed forum topic refuses them too). */
  readonly noTopicRights: Set<number>;
}

const store = new WeakMap<ChatRecord, EmuRestrictions>();

/** The chat's restrictions (none set: an empty set of them). */
export function restrictionsOf(rec: ChatRecord): EmuRestrictions {
  let r = store.get(rec);
  if (!r) {
    r = {
      memberBans: new Map(),
      slowmodeSec: 0,
      lastSendAt: new Map(),
      admins: new Set(),
      noTopicRights: new Set(),
    };
    store.set(rec, r);
  }
  return r;
}

function tl(b: EmuBans, untilSec: number): Api.ChatBannedRights {
  return new Api.ChatBannedRights({
    ...(b.sendMessages ? { sendMessages: true } : {}),
    ...(b.sendPlain ? { sendPlain: true } : {}),
    ...(b.sendMedia ? { sendMedia: true } : {}),
    ...(b.sendStickers ? { sendStickers: true } : {}),
    ...(b.sendGifs ? { sendGifs: true } : {}),
    ...(b.sendVoices ? { sendVoices: true } : {}),
    untilDate: untilSec,
  });
}

/** The member's own restriction in force at `now`, if any. */
function memberBan(rec: ChatRecord, userId: number, now: number): EmuBans | undefined {
  const b = store.get(rec)?.memberBans.get(userId);
  return b && (b.until === undefined || b.until > now) ? b : undefined;
}

/** The rights fields of the chat object `viewerId` receives (a Channel's or a Chat's). */
export function rightsView(
  rec: ChatRecord,
  viewerId: number | undefined,
  now: number,
): {
  defaultBannedRights?: Api.ChatBannedRights;
  bannedRights?: Api.ChatBannedRights;
  slowmodeEnabled?: boolean;
  adminRights?: Api.ChatAdminRights;
} {
  const r = store.get(rec);
  if (!r) return {};
  const own = viewerId !== undefined ? memberBan(rec, viewerId, now) : undefined;
  return {
    ...(r.defaultBans ? { defaultBannedRights: tl(r.defaultBans, 0) } : {}),
    ...(own && rec.chat.kind === "supergroup"
      ? { bannedRights: tl(own, own.until !== undefined ? Math.floor(own.until / 1000) : 0) }
      : {}),
    ...(r.slowmodeSec > 0 && rec.chat.kind === "supergroup" ? { slowmodeEnabled: true } : {}),
    // An admin sees its own rights on the chat object (chat.admin_rights / channel.admin_rights).
    ...(viewerId !== undefined && r.admins.has(viewerId) ? { adminRights: adminRights(r, viewerId) } : {}),
  };
}

/** The rights an emulator admin holds: an ordinary admin's, `manage_topics` unless withheld. */
function adminRights(r: EmuRestrictions, userId: number): Api.ChatAdminRights {
  return new Api.ChatAdminRights({
    changeInfo: true,
    deleteMessages: true,
    banUsers: true,
    inviteUsers: true,
    pinMessages: true,
    ...(r.noTopicRights.has(userId) ? {} : { manageTopics: true }),
  });
}

/** True when `userId` may post in a closed forum topic: an admin with `manage_topics`. */
export function managesTopics(rec: ChatRecord, userId: number): boolean {
  const r = store.get(rec);
  return r !== undefined && r.admins.has(userId) && !r.noTopicRights.has(userId);
}

/** Slow mode's window for the full channel (`slowmode_seconds`), 0 when off. */
export function slowmodeSeconds(rec: ChatRecord): number {
  return store.get(rec)?.slowmodeSec ?? 0;
}

/**
 * Telegram's refusal of a send by `userId` of `what` in the chat at `now`, else undefined. Admins
 * are not held by the default bans nor by slow mode; a member's own restriction holds anyone.
 */
export function sendRefusal(
  rec: ChatRecord,
  userId: number,
  what: "text" | "sticker" | "voice" | "media",
  now: number,
): RpcFault | undefined {
  const r = store.get(rec);
  if (!r || rec.chat.kind === "dm") return undefined;
  const admin = r.admins.has(userId);
  const bans = [memberBan(rec, userId, now), admin ? undefined : r.defaultBans].filter(
    (b): b is EmuBans => b !== undefined,
  );
  if (bans.some((b) => b.sendMessages)) return new RpcFault("CHAT_WRITE_FORBIDDEN", 403);
  if (what === "text" && bans.some((b) => b.sendPlain)) return new RpcFault("CHAT_SEND_PLAIN_FORBIDDEN", 403);
  if (what === "sticker" && bans.some((b) => b.sendStickers))
    return new RpcFault("CHAT_SEND_STICKERS_FORBIDDEN", 403);
  if (what === "voice" && bans.some((b) => b.sendVoices))
    return new RpcFault("CHAT_SEND_VOICES_FORBIDDEN", 403);
  if (what !== "text" && bans.some((b) => b.sendMedia)) return new RpcFault("CHAT_SEND_MEDIA_FORBIDDEN", 403);
  if (!admin && rec.chat.kind === "supergroup" && r.slowmodeSec > 0) {
    const last = r.lastSendAt.get(userId);
    if (last !== undefined && now - last < r.slowmodeSec * 1000) {
      const left = Math.ceil((r.slowmodeSec * 1000 - (now - last)) / 1000);
      return new RpcFault(`SLOWMODE_WAIT_${left}`, 420);
    }
  }
  return undefined;
}

/** A send went through: slow mode's clock starts for its sender. */
export function noteSend(rec: ChatRecord, userId: number, now: number): void {
  const r = store.get(rec);
  if (r && r.slowmodeSec > 0) r.lastSendAt.set(userId, now);
}
