import { Api, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { NO_WRITES, type ChatWrites, type WriteKind } from "../base/chat-writes";
import type { EntityRecord, EntityStore } from "../store/entities";

/**
 * GramJS user/chat object → what the entity store keeps; undefined for empty/forbidden shapes without a use.
 * Marked ids are written out ("-<id>" for a basic group, "-100<id>" for a channel, as GramJS's
 * getPeerId marks them): every message's update carries its chat, and getPeerId builds two TL
 * objects on the way to that string.
 */
function entityRecord(x: Api.TypeUser | Api.TypeChat): EntityRecord | undefined {
  if (x instanceof Api.User) {
    return {
      peerId: x.id.toString(),
      kind: "user",
      ...(x.accessHash !== undefined && x.accessHash !== null ? { accessHash: x.accessHash.toString() } : {}),
      ...(x.firstName ? { firstName: x.firstName } : {}),
      ...(x.lastName ? { lastName: x.lastName } : {}),
      ...(x.username ? { username: x.username } : {}),
      bot: Boolean(x.bot),
      min: Boolean(x.min),
      // A full user object always says whether it is a contact; a min copy does not.
      ...(x.min ? {} : { contact: Boolean(x.contact) }),
      // A deleted account ("Deleted Account"): nothing reaches it any more (INPUT_USER_DEACTIVATED).
      ...(x.deleted ? { gone: true, writes: NO_WRITES } : {}),
    };
  }
  if (x instanceof Api.Chat) {
    return {
      peerId: `-${x.id.toString()}`,
      kind: "chat",
      ...(x.title ? { title: x.title } : {}),
      bot: false,
      min: false,
      ...(typeof x.participantsCount === "number" ? { members: x.participantsCount } : {}),
      // Upgraded to a supergroup: the chat object alone names it (docs/chat-upgrades.md).
      ...(x.deactivated && x.migratedTo instanceof Api.InputChannel
        ? { movedTo: `-100${x.migratedTo.channelId.toString()}` }
        : {}),
      // Left, or deactivated (upgraded to a supergroup: migrated_to): nothing may be sent there.
      writes:
        x.left || x.deactivated
          ? NO_WRITES
          : chatWrites(x.defaultBannedRights, undefined, Boolean(x.creator || x.adminRights), false),
    };
  }
  if (x instanceof Api.ChatForbidden) {
    // Removed from a basic group: its title stays known; she may not write there.
    return {
      peerId: `-${x.id.toString()}`,
      kind: "chat",
      ...(x.title ? { title: x.title } : {}),
      bot: false,
      min: false,
      writes: NO_WRITES,
    };
  }
  if (x instanceof Api.Channel) {
    return {
      peerId: `-100${x.id.toString()}`,
      kind: "channel",
      ...(x.accessHash !== undefined && x.accessHash !== null ? { accessHash: x.accessHash.toString() } : {}),
      ...(x.title ? { title: x.title } : {}),
      ...(x.username ? { username: x.username } : {}),
      bot: false,
      min: Boolean(x.min),
      ...(x.broadcast ? { broadcast: true } : {}),
      ...(typeof x.participantsCount === "number" ? { members: x.participantsCount } : {}),
      // A full channel object says whether the account is in it (`left`); a min copy does not.
      ...(x.min ? {} : { gone: Boolean(x.left) }),
      ...(x.min || x.broadcast
        ? {}
        : {
            writes: {
              ...chatWrites(
                x.defaultBannedRights,
                x.bannedRights,
                Boolean(x.creator || x.adminRights),
                Boolean(x.slowmodeEnabled),
              ),
              // Closed forum topics take the creator's and topic managers' messages (TDLib forumTopicInfo).
              ...(x.creator || x.adminRights?.manageTopics ? { topics: true } : {}),
            },
          }),
    };
  }
  if (x instanceof Api.ChannelForbidden) {
    // Removed or banned: Telegram shows the channel as forbidden.
    return {
      peerId: `-100${x.id.toString()}`,
      kind: "channel",
      accessHash: x.accessHash.toString(),
      ...(x.title ? { title: x.title } : {}),
      bot: false,
      min: false,
      ...(x.broadcast ? { broadcast: true } : {}),
      gone: true,
    };
  }
  return undefined;
}

/** The kinds a chatBannedRights forbids (a sticker and a voice message are media: `send_media` forbids them too). */
function forbidden(r: Api.TypeChatBannedRights | undefined): WriteKind[] {
  if (!(r instanceof Api.ChatBannedRights)) return [];
  const out: WriteKind[] = [];
  if (r.sendMessages) out.push("all");
  if (r.sendPlain) out.push("text");
  if (r.sendStickers || r.sendMedia) out.push("sticker");
  if (r.sendVoices || r.sendMedia) out.push("voice");
  return out;
}

/** What the account may send in a group (base/chat-writes.ts), from its chat object. */
function chatWrites(
  byDefault: Api.TypeChatBannedRights | undefined,
  own: Api.TypeChatBannedRights | undefined,
  admin: boolean,
  slowmode: boolean,
): ChatWrites {
  const until = own instanceof Api.ChatBannedRights ? own.untilDate : 0;
  return {
    byDefault: admin ? [] : forbidden(byDefault),
    own: forbidden(own),
    // Telegram: an until_date under 30 s or over 366 days from now means forever; 0 is forever.
    ...(until > 0 ? { ownUntil: until * 1000 } : {}),
    slowmode: slowmode && !admin,
  };
}

/** A basic group's default bans changed (`updateChatDefaultBannedRights`): its stored record follows. */
export function observeDefaultBans(store: EntityStore, u: Api.UpdateChatDefaultBannedRights): void {
  const peerId = utils.getPeerId(u.peer);
  const known = store.get(peerId);
  if (!known || known.kind !== "chat") return;
  // The update does not say whether she is an admin there: the bans are taken to hold her (the
  // chat object's next copy, with its admin_rights, corrects it).
  store.observe({ ...known, writes: chatWrites(u.defaultBannedRights, undefined, false, false) });
}

/** What a refused send says she may not send there (Telegram's 403 answers); undefined: none of them. */
const REFUSED: Record<string, WriteKind> = {
  CHAT_WRITE_FORBIDDEN: "all",
  CHAT_RESTRICTED: "all",
  CHAT_SEND_PLAIN_FORBIDDEN: "text",
  CHAT_SEND_STICKERS_FORBIDDEN: "sticker",
  CHAT_SEND_MEDIA_FORBIDDEN: "sticker",
  CHAT_SEND_VOICES_FORBIDDEN: "voice",
};

/**
 * A send to a group was refused for her rights (CHAT_WRITE_FORBIDDEN and the like) while the
 * stored record did not know it (after a restart, before the chat's next full object): the
 * record says so now, so the next mention there costs no plan. The chat's next full object
 * (updateChannel when an admin lifts it) replaces it.
 */
export function noteWriteRefusal(store: EntityStore, chatId: string, error: string): void {
  if (error === "INPUT_USER_DEACTIVATED") return noteDeletedAccount(store, chatId);
  const kind = REFUSED[error];
  // A basic group seen only in short updates has no record yet (it needs no access hash).
  const isGroup = chatId.startsWith("-") && !chatId.startsWith("-100");
  const known =
    store.get(chatId) ??
    (isGroup ? { peerId: chatId, kind: "chat" as const, bot: false, min: false } : undefined);
  if (kind === undefined || !known || known.kind === "user") return;
  const w = known.writes ?? { byDefault: [], own: [], slowmode: false };
  if (w.own.includes(kind)) return;
  store.observe({
    ...known,
    writes: { byDefault: w.byDefault, own: [...w.own, kind], slowmode: w.slowmode },
  });
}

/**
 * A send to a DM answered INPUT_USER_DEACTIVATED: the partner's account was deleted. Their record
 * says so now (`gone`, kept across restarts), as the user object's `deleted` flag would have.
 */
function noteDeletedAccount(store: EntityStore, userId: string): void {
  const known = store.get(userId);
  if (known?.kind !== "user" || known.gone) return;
  store.observe({ ...known, gone: true, writes: NO_WRITES });
}

/** Store every user and chat of a list (an update's or an answer's). Cheap when nothing changed. */
export function captureEntities(store: EntityStore, list: Iterable<Api.TypeUser | Api.TypeChat>): void {
  for (const x of list) {
    const r = entityRecord(x);
    if (!r) continue;
    // The supergroup a deactivated group names can be addressed by its migrated_to (its hash).
    if (
      x instanceof Api.Chat &&
      x.migratedTo instanceof Api.InputChannel &&
      r.movedTo &&
      !store.get(r.movedTo)
    )
      store.observe({
        peerId: r.movedTo,
        kind: "channel",
        accessHash: x.migratedTo.accessHash.toString(),
        ...(x.title ? { title: x.title } : {}),
        bot: false,
        min: false,
      });
    store.observe(r);
  }
}

/** The input peer for a stored entity, or undefined when it cannot be addressed (min, no hash). */
export function inputPeerOf(e: EntityRecord | undefined): Api.TypeInputPeer | undefined {
  if (!e) return undefined;
  if (e.kind === "chat") return new Api.InputPeerChat({ chatId: bigId(e.peerId.slice(1)) });
  if (e.accessHash === undefined || e.min) return undefined;
  if (e.kind === "user")
    return new Api.InputPeerUser({ userId: bigId(e.peerId), accessHash: bigId(e.accessHash) });
  return new Api.InputPeerChannel({ channelId: bigId(e.peerId.slice(4)), accessHash: bigId(e.accessHash) });
}

/** The InputChannel of a stored channel, or undefined. */
export function inputChannelOf(e: EntityRecord | undefined): Api.InputChannel | undefined {
  if (!e || e.kind !== "channel" || e.accessHash === undefined || e.min) return undefined;
  return new Api.InputChannel({ channelId: bigId(e.peerId.slice(4)), accessHash: bigId(e.accessHash) });
}

function bigId(s: string): ReturnType<typeof returnBigInt> {
  return returnBigInt(s);
}
