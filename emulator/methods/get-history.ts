/**
 * messages.GetHistory: newest first, paged by offsetId/addOffset/limit and bounded by
 * minId/maxId — what a backfill after a restart asks.
 */
import { Api } from "telegram";
import type { StoredMessage } from "../stored-message";
import { defineMethod } from "./method";
import { chatForInputPeer } from "./resolve-peer";

// Telegram caps one history page at 100 messages.
const MAX_LIMIT = 100;

export const getHistory = defineMethod("messages.GetHistory", Api.messages.GetHistory, (ctx, req) => {
  const { world, views, account } = ctx;
  const rec = chatForInputPeer(world, account, req.peer, "read");
  const idOf = (m: StoredMessage): number => world.idFor(m, account.id) ?? 0;
  // Newest first, as Telegram pages history; min_id/max_id bound the selection before paging.
  const all = world.visibleMessages(rec, account.id);
  const visible = all
    .filter((m) => (req.maxId <= 0 || idOf(m) < req.maxId) && (req.minId <= 0 || idOf(m) > req.minId))
    .reverse();

  let start = 0;
  if (req.offsetId > 0) {
    start = visible.findIndex((m) => idOf(m) < req.offsetId);
    if (start < 0) start = visible.length;
  } else if (req.offsetDate > 0) {
    start = visible.findIndex((m) => Math.floor(m.date / 1000) < req.offsetDate);
    if (start < 0) start = visible.length;
  }
  // A negative add_offset reaches back to newer messages (what a forward scan asks); the window
  // [start + add_offset, … + limit) is cut at the newest message, not shifted.
  const limit = Math.min(req.limit > 0 ? req.limit : 20, MAX_LIMIT);
  const from = start + req.addOffset;
  const page = visible.slice(Math.max(0, from), Math.max(0, from + limit));

  const bag = views.entitiesFor(page, account, [rec]);
  const messages = page.map((m) => views.message(m, account));
  if (rec.chat.kind === "supergroup") {
    return new Api.messages.ChannelMessages({
      pts: rec.pts.pts,
      count: all.length,
      messages,
      topics: [],
      users: bag.users,
      chats: bag.chats,
    });
  }
  if (page.length === all.length) {
    return new Api.messages.Messages({ messages, users: bag.users, chats: bag.chats });
  }
  return new Api.messages.MessagesSlice({ count: all.length, messages, users: bag.users, chats: bag.chats });
});
