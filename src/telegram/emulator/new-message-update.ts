/**
 * The update Telegram pushes for a new message, as one account receives it.
 */
import { Api } from "telegram";
import type { StoredMessage } from "./stored-message.js";
import type { TlViews } from "./tl-views.js";
import type { EmuUser } from "./types.js";
import type { World } from "./world.js";

/** UpdateNewChannelMessage for supergroups, UpdateNewMessage for DMs and basic groups. */
export function newMessageUpdate(world: World, views: TlViews, msg: StoredMessage, viewer: EmuUser): Api.TypeUpdate {
  const message = views.message(msg, viewer);
  const pts = world.ptsFor(msg, viewer.id) ?? 0;
  if (msg.chat.chat.kind === "supergroup") return new Api.UpdateNewChannelMessage({ message, pts, ptsCount: 1 });
  return new Api.UpdateNewMessage({ message, pts, ptsCount: 1 });
}

/** The full `Api.Updates` (with users and chats, so GramJS can resolve the sender) for `viewer`. */
export function newMessageUpdates(world: World, views: TlViews, msg: StoredMessage, viewer: EmuUser, nowMs: number): Api.Updates {
  const bag = views.entitiesFor([msg], viewer);
  return new Api.Updates({
    updates: [newMessageUpdate(world, views, msg, viewer)],
    users: bag.users,
    chats: bag.chats,
    date: Math.floor(nowMs / 1000),
    seq: 0,
  });
}
