/**
 * messages.GetMessages (DMs and basic groups: ids are per account, and there is no peer) and
 * channels.GetMessages (one id space per channel). Both follow InputMessageReplyTo — the id of
 * the *replying* message — to its reply target, which is how GramJS's getReplyMessage() asks.
 */
import { Api } from "telegram";
import type { ChatRecord, StoredMessage } from "../stored-message";
import type { TlViews } from "../tl-views";
import type { EmuUser } from "../types";
import { defineMethod } from "./method";
import { chatForInputChannel } from "./resolve-peer";

/** A requested message: found (maybe deleted) or not, with the id to echo in MessageEmpty. */
interface Lookup {
  readonly msg: StoredMessage | undefined;
  readonly requestedId: number;
}

export const getMessages = defineMethod("messages.GetMessages", Api.messages.GetMessages, (ctx, req) => {
  const box = ctx.world.mailbox(ctx.account.id);
  const lookups = req.id.map((input) => lookup(input, (id) => box.byId.get(id)));
  const found = lookups.flatMap((l) => (l.msg && !l.msg.deleted ? [l.msg] : []));
  const bag = ctx.views.entitiesFor(found, ctx.account);
  return new Api.messages.Messages({
    messages: lookups.map((l) => message(ctx.views, l, ctx.account)),
    users: bag.users,
    chats: bag.chats,
  });
});

export const getChannelMessages = defineMethod(
  "channels.GetMessages",
  Api.channels.GetMessages,
  (ctx, req) => {
    const rec = chatForInputChannel(ctx.world, ctx.account, req.channel);
    const lookups = req.id.map((input) => lookup(input, (id) => rec.byChannelId.get(id)));
    const found = lookups.flatMap((l) => (l.msg && !l.msg.deleted ? [l.msg] : []));
    const bag = ctx.views.entitiesFor(found, ctx.account, [rec]);
    const messages = lookups.map((l) => message(ctx.views, l, ctx.account));
    // messages.ChannelMessages needs `topics` (empty here): omitting it is invalid TL.
    return new Api.messages.ChannelMessages({
      pts: rec.pts.pts,
      count: messages.length,
      messages,
      topics: [],
      users: bag.users,
      chats: bag.chats,
    });
  },
);

function lookup(input: Api.TypeInputMessage, byId: (id: number) => StoredMessage | undefined): Lookup {
  if (input instanceof Api.InputMessageID) return { msg: byId(input.id), requestedId: input.id };
  if (input instanceof Api.InputMessageReplyTo) {
    const replying = byId(input.id);
    return { msg: replying && !replying.deleted ? replyTarget(replying) : undefined, requestedId: input.id };
  }
  return { msg: undefined, requestedId: 0 };
}

// The reply header of a plain forum-topic message points at the topic root; follow it there too.
function replyTarget(msg: StoredMessage): StoredMessage | undefined {
  if (msg.replyTo) return msg.replyTo;
  if (msg.topicId !== undefined) return topicRoot(msg.chat, msg.topicId);
  return undefined;
}

function topicRoot(rec: ChatRecord, topicId: number): StoredMessage | undefined {
  return rec.byChannelId.get(topicId);
}

function message(views: TlViews, l: Lookup, viewer: EmuUser): Api.TypeMessage {
  return l.msg ? views.message(l.msg, viewer, l.requestedId) : new Api.MessageEmpty({ id: l.requestedId });
}
