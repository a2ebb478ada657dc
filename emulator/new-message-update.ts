/**
 * The update Telegram pushes for a new message, as one account receives it, in either shape
 * (see `EmulatorOptions.updateShapes`).
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { StoredMessage } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { EmuUser, UpdateShapes } from "./types";
import type { World } from "./world";

/** UpdateNewChannelMessage for supergroups, UpdateNewMessage for DMs and basic groups. */
export function newMessageUpdate(
  world: World,
  views: TlViews,
  msg: StoredMessage,
  viewer: EmuUser,
): Api.TypeUpdate {
  const message = views.message(msg, viewer);
  const pts = world.ptsFor(msg, viewer.id) ?? 0;
  if (msg.chat.chat.kind === "supergroup")
    return new Api.UpdateNewChannelMessage({ message, pts, ptsCount: 1 });
  return new Api.UpdateNewMessage({ message, pts, ptsCount: 1 });
}

/**
 * What `viewer` is pushed for a new message. "full": `Updates` with users and chats. "telegram":
 * a plain-text DM or basic-group message as UpdateShortMessage / UpdateShortChatMessage (no
 * users, no chats — the client knows only ids), anything else as `Updates`, where supergroup
 * senders the viewer never received in full are `min` users.
 */
export function newMessageUpdates(
  world: World,
  views: TlViews,
  msg: StoredMessage,
  viewer: EmuUser,
  nowMs: number,
  shapes: UpdateShapes = "full",
): Api.TypeUpdates {
  if (shapes === "telegram") {
    const short = shortMessage(world, views, msg, viewer);
    if (short) return short;
  }
  const bag = views.entitiesFor(
    [msg],
    viewer,
    [],
    shapes === "telegram" && msg.chat.chat.kind === "supergroup",
  );
  return new Api.Updates({
    updates: [newMessageUpdate(world, views, msg, viewer)],
    users: bag.users,
    chats: bag.chats,
    date: Math.floor(nowMs / 1000),
    seq: 0,
  });
}

/** True when Telegram would use a short update (or short sent answer) for this message. */
export function isShortShaped(msg: StoredMessage): boolean {
  const kind = msg.chat.chat.kind;
  // Short updates have no media field: a message with media always comes in full.
  if (kind === "supergroup" || msg.sticker || msg.media || msg.webPage || msg.service || msg.senderChat)
    return false;
  // A forward, an inline bot's message or a reply elsewhere names other peers: sent in full with them.
  if (msg.forwardOf || msg.viaBotId !== undefined || msg.replyElsewhere) return false;
  // Saved Messages keep the full shape.
  return !(kind === "dm" && msg.chat.members.size === 1);
}

function shortMessage(
  world: World,
  views: TlViews,
  msg: StoredMessage,
  viewer: EmuUser,
): Api.TypeUpdates | undefined {
  if (!isShortShaped(msg)) return undefined;
  const full = views.message(msg, viewer);
  if (!(full instanceof Api.Message)) return undefined;
  const common = {
    out: full.out,
    mentioned: full.mentioned,
    id: full.id,
    message: full.message,
    pts: world.ptsFor(msg, viewer.id) ?? 0,
    ptsCount: 1,
    date: full.date,
    ...(full.replyTo ? { replyTo: full.replyTo } : {}),
    ...(full.entities ? { entities: full.entities } : {}),
  };
  if (msg.chat.chat.kind === "dm") {
    return new Api.UpdateShortMessage({ ...common, userId: toLong(world.dmPeerOf(msg.chat, viewer.id)) });
  }
  return new Api.UpdateShortChatMessage({
    ...common,
    fromId: toLong(msg.fromId),
    chatId: toLong(msg.chat.chat.id),
  });
}
