/**
 * messages.SendReaction: one standard reaction per user and message (a non-premium account);
 * an empty list removes it. Anything outside Telegram's standard list, or outside what the chat
 * allows (its available_reactions; private chats allow every standard one), is REACTION_INVALID.
 * The answer is `Updates{updateMessageReactions}` as the caller sees the message now; the
 * message's author, if it is another attached account, is pushed the same (see
 * message-reactions.ts).
 */
import { Api } from "telegram";
import { RpcFault } from "../rpc-fault";
import { isAllowed, isStandardReaction } from "../../src/base/standard-reactions";
import { setReaction } from "../message-reactions";
import { reactionPush, reactionsUpdate } from "../reaction-push";
import { defineMethod, updatesEnvelope } from "./method";
import { asMessageId, chatForInputPeer } from "./resolve-peer";

export const sendReaction = defineMethod("messages.SendReaction", Api.messages.SendReaction, (ctx, req) => {
  const { world, views, account } = ctx;
  const rec = chatForInputPeer(world, account, req.peer, "read");
  const msgId = asMessageId(req.msgId);
  const msg = world.findInChat(rec, msgId, account);
  if (!msg || msg.deleted || msg.service) throw new RpcFault("MESSAGE_ID_INVALID");
  const reactions = req.reaction ?? [];
  if (reactions.length > 1) throw new RpcFault("REACTIONS_TOO_MANY");
  const first = reactions[0];
  let changed: boolean;
  if (first === undefined || first instanceof Api.ReactionEmpty) {
    changed = setReaction(msg, account.id, undefined, ctx.now);
  } else if (
    first instanceof Api.ReactionEmoji &&
    isStandardReaction(first.emoticon) &&
    (rec.chat.kind === "dm" || isAllowed(first.emoticon, rec.reactions))
  ) {
    changed = setReaction(msg, account.id, first.emoticon, ctx.now);
  } else {
    throw new RpcFault("REACTION_INVALID");
  }
  if (changed) {
    const push = reactionPush(world, views, msg, account.id, ctx.now);
    if (push) ctx.pushLater(push);
  }
  const update = reactionsUpdate(world, views, msg, account)!;
  return updatesEnvelope([update], views.entitiesFor([], account, [rec]), ctx.now);
});
