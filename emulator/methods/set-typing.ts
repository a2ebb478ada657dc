/**
 * messages.SetTyping: recorded (account, chat, action, topic) so tests can assert the persona
 * "typed" before answering; Telegram answers Bool true.
 */
import { Api } from "telegram";
import { defineMethod } from "./method";
import { asMessageId, chatForInputPeer } from "./resolve-peer";

export const setTyping = defineMethod("messages.SetTyping", Api.messages.SetTyping, (ctx, req) => {
  const rec = chatForInputPeer(ctx.world, ctx.account, req.peer, "write");
  ctx.world.typing.push({
    account: ctx.account,
    chat: rec.chat,
    action: req.action.className,
    ...(req.topMsgId != null ? { topicId: asMessageId(req.topMsgId) } : {}),
    at: ctx.now,
  });
  return true;
});
