/**
 * channels.GetParticipant: one member of a supergroup the account is in. A user who is not (or no
 * longer) a member is USER_NOT_PARTICIPANT, as core.telegram.org lists it; a supergroup the
 * account is not in is CHANNEL_PRIVATE (chatForInputChannel).
 */
import { Api } from "telegram";
import { toLong } from "../long";
import { RpcFault } from "../rpc-fault";
import { defineMethod } from "./method";
import { chatForInputChannel, userForInputPeer } from "./resolve-peer";

export const getParticipant = defineMethod(
  "channels.GetParticipant",
  Api.channels.GetParticipant,
  (ctx, req) => {
    const rec = chatForInputChannel(ctx.world, ctx.account, req.channel);
    const user = userForInputPeer(ctx.world, ctx.account, req.participant);
    if (!user) throw new RpcFault("PARTICIPANT_ID_INVALID");
    if (!rec.members.has(user.id)) throw new RpcFault("USER_NOT_PARTICIPANT");
    return new Api.channels.ChannelParticipant({
      participant: new Api.ChannelParticipant({
        userId: toLong(user.id),
        date: Math.floor(ctx.now / 1000),
      }),
      chats: [],
      users: [ctx.views.user(user, ctx.account.id)],
    });
  },
);
