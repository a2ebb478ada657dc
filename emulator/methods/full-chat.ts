/**
 * channels.GetFullChannel and messages.GetFullChat: the full chat, of which a client reads what
 * members may react with (`available_reactions`: chatReactionsAll, chatReactionsSome with the
 * list, or chatReactionsNone). A supergroup the account is not in is CHANNEL_PRIVATE; a basic
 * group it is not in, CHAT_ID_INVALID.
 */
import { Api } from "telegram";
import type { AllowedReactions } from "../../src/base/standard-reactions";
import { slowmodeSeconds } from "../chat-rights";
import { fromLong, toLong } from "../long";
import { RpcFault } from "../rpc-fault";
import type { ChatRecord } from "../stored-message";
import { defineMethod, type MethodContext } from "./method";
import { chatForInputChannel } from "./resolve-peer";

/** The TL form of what a chat allows. */
function chatReactions(r: AllowedReactions): Api.TypeChatReactions {
  if (r.kind === "all") return new Api.ChatReactionsAll({});
  if (r.kind === "none") return new Api.ChatReactionsNone();
  return new Api.ChatReactionsSome({
    reactions: r.emoji.map((emoticon) => new Api.ReactionEmoji({ emoticon })),
  });
}

export const getFullChannel = defineMethod(
  "channels.GetFullChannel",
  Api.channels.GetFullChannel,
  (ctx, req) => {
    const rec = chatForInputChannel(ctx.world, ctx.account, req.channel);
    const fullChat = new Api.ChannelFull({
      id: toLong(rec.chat.id),
      about: "",
      participantsCount: rec.members.size,
      readInboxMaxId: rec.readMax.get(ctx.account.id) ?? 0,
      readOutboxMaxId: rec.readOutbox.get(ctx.account.id) ?? 0,
      unreadCount: 0,
      chatPhoto: new Api.PhotoEmpty({ id: toLong(0) }),
      notifySettings: new Api.PeerNotifySettings({}),
      botInfo: [],
      pts: rec.pts.pts,
      availableReactions: chatReactions(rec.reactions),
      ...(slowmodeSeconds(rec) > 0 ? { slowmodeSeconds: slowmodeSeconds(rec) } : {}),
      ...(rec.migratedFrom
        ? {
            migratedFromChatId: toLong(rec.migratedFrom.chat.chat.id),
            migratedFromMaxId: ctx.world.idFor(rec.migratedFrom.last, ctx.account.id) ?? 0,
          }
        : {}),
    });
    return fullAnswer(ctx, rec, fullChat);
  },
);

export const getFullChat = defineMethod("messages.GetFullChat", Api.messages.GetFullChat, (ctx, req) => {
  const rec = ctx.world.group(fromLong(req.chatId));
  if (!rec || !rec.members.has(ctx.account.id)) throw new RpcFault("CHAT_ID_INVALID");
  const fullChat = new Api.ChatFull({
    id: toLong(rec.chat.id),
    about: "",
    participants: new Api.ChatParticipants({
      chatId: toLong(rec.chat.id),
      participants: [...rec.members].map(
        (id) => new Api.ChatParticipant({ userId: toLong(id), inviterId: toLong(id), date: rec.createdAt }),
      ),
      version: 1,
    }),
    notifySettings: new Api.PeerNotifySettings({}),
    availableReactions: chatReactions(rec.reactions),
  });
  return fullAnswer(ctx, rec, fullChat);
});

function fullAnswer(ctx: MethodContext, rec: ChatRecord, fullChat: Api.TypeChatFull): Api.messages.ChatFull {
  const bag = ctx.views.entitiesFor([], ctx.account, [rec]);
  return new Api.messages.ChatFull({ fullChat, chats: bag.chats, users: bag.users });
}
