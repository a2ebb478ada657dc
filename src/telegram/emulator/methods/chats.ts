/**
 * messages.GetChats and channels.GetChannels: what GramJS's getEntity() asks for a chat it has
 * not cached. Chats the account is not in are left out (CHANNEL_PRIVATE for channels).
 */
import { Api } from "telegram";
import { fromLong } from "../long.js";
import type { TlViews } from "../tl-views.js";
import type { ChatRecord } from "../stored-message.js";
import { defineMethod } from "./method.js";
import { chatForInputChannel } from "./resolve-peer.js";

export const getChats = defineMethod("messages.GetChats", Api.messages.GetChats, (ctx, req) => {
  const recs = req.id.flatMap((id) => {
    const rec = ctx.world.group(fromLong(id));
    return rec && rec.members.has(ctx.account.id) ? [rec] : [];
  });
  return new Api.messages.Chats({ chats: chatsOf(ctx.views, recs) });
});

export const getChannels = defineMethod("channels.GetChannels", Api.channels.GetChannels, (ctx, req) => {
  const recs = req.id.map((input) => chatForInputChannel(ctx.world, ctx.account, input));
  return new Api.messages.Chats({ chats: chatsOf(ctx.views, recs) });
});

function chatsOf(views: TlViews, recs: readonly ChatRecord[]): Api.TypeChat[] {
  return recs.flatMap((rec) => {
    const chat = views.chat(rec);
    return chat ? [chat] : [];
  });
}
