/**
 * messages.GetChats and channels.GetChannels: what GramJS's getEntity() asks for a chat it has
 * not cached. Basic groups the account is not in are left out; a channel it was removed from
 * comes back as ChannelForbidden, one it left as the channel with `left` set; an unknown channel
 * or a wrong access hash is CHANNEL_INVALID.
 */
import { Api } from "telegram";
import { fromLong } from "../long";
import { RpcFault } from "../rpc-fault";
import type { TlViews } from "../tl-views";
import type { ChatRecord } from "../stored-message";
import { defineMethod } from "./method";
import { chatForInputChannel } from "./resolve-peer";

export const getChats = defineMethod("messages.GetChats", Api.messages.GetChats, (ctx, req) => {
  const recs = req.id.flatMap((id) => {
    const rec = ctx.world.group(fromLong(id));
    return rec && rec.members.has(ctx.account.id) ? [rec] : [];
  });
  return new Api.messages.Chats({ chats: chatsOf(ctx.views, recs, ctx.account.id) });
});

export const getChannels = defineMethod("channels.GetChannels", Api.channels.GetChannels, (ctx, req) => {
  const chats = req.id.map((input): Api.TypeChat => {
    try {
      return chatsOf(
        ctx.views,
        [chatForInputChannel(ctx.world, ctx.account, input)],
        ctx.account.id,
      )[0] as Api.TypeChat;
    } catch (e) {
      // A channel the account is no longer in comes back as its forbidden / left view, not as an error.
      const rec =
        e instanceof RpcFault && e.errorMessage === "CHANNEL_PRIVATE" && input instanceof Api.InputChannel
          ? ctx.world.channel(fromLong(input.channelId))
          : undefined;
      const view = rec ? ctx.views.chatFor(rec, ctx.account.id) : undefined;
      if (!view) throw e;
      return view;
    }
  });
  return new Api.messages.Chats({ chats });
});

function chatsOf(views: TlViews, recs: readonly ChatRecord[], viewerId?: number): Api.TypeChat[] {
  return recs.flatMap((rec) => {
    const chat = views.chat(rec, viewerId);
    return chat ? [chat] : [];
  });
}
