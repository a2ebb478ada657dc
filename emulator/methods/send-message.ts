/**
 * messages.SendMessage and messages.SendMedia (stickers, uploaded voice notes: uploaded-media.ts): store the message, answer like Telegram
 * (UpdateMessageID + the new message with out:true), and announce it to the other members.
 */
import { Api } from "telegram";
import { noteSend, sendRefusal } from "../chat-rights";
import { topicRefusal } from "../closed-topics";
import { fromLong } from "../long";
import { normaliseEntities } from "../mentions";
import { isShortShaped, newMessageUpdate } from "../new-message-update";
import { RpcFault } from "../rpc-fault";
import type { ChatRecord, MediaRecord, StickerDoc, StoredMessage } from "../stored-message";
import { forbidsVoiceMessages, uploadedDocument } from "../uploaded-media";
import { defineMethod, updatesEnvelope, type MethodContext } from "./method";
import { chatForInputPeer, userForInputUser } from "./resolve-peer";

// Telegram's limit for a text message (bytes are not the limit; UTF-16 length is close enough).
const MAX_MESSAGE_LENGTH = 4096;

interface SendInput {
  readonly peer: unknown;
  readonly randomId: Api.messages.SendMessage["randomId"];
  readonly message: string;
  readonly replyTo?: Api.TypeInputReplyTo;
  readonly entities?: Api.TypeMessageEntity[];
  readonly sticker?: StickerDoc;
  readonly media?: MediaRecord;
}

export const sendMessage = defineMethod("messages.SendMessage", Api.messages.SendMessage, (ctx, req) =>
  send(ctx, {
    peer: req.peer,
    randomId: req.randomId,
    message: req.message,
    ...(req.replyTo ? { replyTo: req.replyTo } : {}),
    ...(req.entities ? { entities: req.entities } : {}),
  }),
);

export const sendMedia = defineMethod("messages.SendMedia", Api.messages.SendMedia, (ctx, req) => {
  const media = req.media;
  const common = {
    peer: req.peer,
    randomId: req.randomId,
    message: req.message,
    ...(req.replyTo ? { replyTo: req.replyTo } : {}),
    ...(req.entities ? { entities: req.entities } : {}),
  };
  if (media instanceof Api.InputMediaUploadedDocument)
    return send(ctx, { ...common, media: uploadedDocument(ctx.world, ctx.account.id, media) });
  if (!(media instanceof Api.InputMediaDocument)) {
    throw new RpcFault("EMULATOR_UNIMPLEMENTED", 400, `messages.SendMedia with ${media.className}`);
  }
  const input = media.id;
  const doc = input instanceof Api.InputDocument ? ctx.world.stickers.doc(fromLong(input.id)) : undefined;
  if (!doc || !(input instanceof Api.InputDocument) || doc.accessHash !== fromLong(input.accessHash)) {
    throw new RpcFault("MEDIA_INVALID");
  }
  return send(ctx, { ...common, sticker: doc });
});

function send(ctx: MethodContext, input: SendInput): Api.Updates | Api.UpdateShortSentMessage {
  const { world, views, account } = ctx;
  const rec = chatForInputPeer(world, account, input.peer, "write");
  const box = world.mailbox(account.id);
  if (rec.chat.kind === "dm") {
    const peerId = world.dmPeerOf(rec, account.id);
    if (peerId !== account.id && box.blocked.has(peerId)) throw new RpcFault("YOU_BLOCKED_USER");
  }
  const randomId = input.randomId;
  if (randomId == null) throw new RpcFault("RANDOM_ID_EMPTY");
  const randomKey = randomId.toString();
  const original = box.randomIds.get(randomKey);
  if (original) {
    if (ctx.duplicates === "error") throw new RpcFault("RANDOM_ID_DUPLICATE");
    return replay(ctx, original, randomId);
  }
  if (!input.sticker && !input.media && input.message.trim() === "") throw new RpcFault("MESSAGE_EMPTY");
  // The chat's bans and slow mode (chat-rights.ts), after the duplicate check as on Telegram.
  const what = input.sticker
    ? "sticker"
    : input.media
      ? input.media.kind === "voice"
        ? "voice"
        : "media"
      : "text";
  const refusal = sendRefusal(rec, account.id, what, ctx.now);
  if (refusal) throw refusal;
  if (input.media?.kind === "voice" && rec.chat.kind === "dm") {
    const peerId = world.dmPeerOf(rec, account.id);
    if (peerId !== account.id && forbidsVoiceMessages(world, peerId))
      throw new RpcFault("VOICE_MESSAGES_FORBIDDEN", 403);
  }
  if (input.message.length > MAX_MESSAGE_LENGTH) throw new RpcFault("MESSAGE_TOO_LONG");

  const placement = resolveReply(ctx, rec, input.replyTo);
  const closedTopic = topicRefusal(rec, account.id, placement.topicId);
  if (closedTopic) throw closedTopic;

  const msg = world.storeMessage({
    chat: rec,
    fromId: account.id,
    text: input.message,
    entities: normaliseEntities(
      input.message,
      input.entities,
      (u) => userForInputUser(world, account, u)?.id,
    ),
    date: ctx.now,
    ...placement,
    ...(input.sticker ? { sticker: input.sticker } : {}),
    ...(input.media ? { media: input.media } : {}),
  });

  box.randomIds.set(randomKey, msg);
  noteSend(rec, account.id, ctx.now);
  const id = world.idFor(msg, account.id) ?? 0;
  ctx.announce(msg);
  // Telegram answers a plain text send to a DM or basic group with the short form.
  if (ctx.shapes === "telegram" && isShortShaped(msg)) {
    return new Api.UpdateShortSentMessage({
      out: true,
      id,
      pts: world.ptsFor(msg, account.id) ?? 0,
      ptsCount: 1,
      date: Math.floor(msg.date / 1000),
      ...(msg.entities.length > 0 ? { entities: [...msg.entities] } : {}),
    });
  }
  const update = newMessageUpdate(world, views, msg, account);
  return updatesEnvelope(
    [new Api.UpdateMessageID({ id, randomId }), update],
    views.entitiesFor([msg], account),
    ctx.now,
  );
}

/**
 * The answer to a repeated random_id in "replay" mode: the original message once more, as it is
 * now, with pts_count 0 (nothing new happened), and nothing announced to anyone.
 */
function replay(
  ctx: MethodContext,
  original: StoredMessage,
  randomId: NonNullable<SendInput["randomId"]>,
): Api.Updates {
  const { world, views, account } = ctx;
  const id = world.idFor(original, account.id) ?? 0;
  const message = views.message(original, account);
  const update =
    original.chat.chat.kind === "supergroup"
      ? new Api.UpdateNewChannelMessage({ message, pts: original.chat.pts.pts, ptsCount: 0 })
      : new Api.UpdateNewMessage({ message, pts: world.mailbox(account.id).pts.pts, ptsCount: 0 });
  return updatesEnvelope(
    [new Api.UpdateMessageID({ id, randomId }), update],
    views.entitiesFor([original], account),
    ctx.now,
  );
}

/**
 * Where a reply lands. A reply to a forum topic's root is a plain message in that topic; a reply
 * to a message inside a topic stays in its topic. A target that does not exist (deleted meanwhile)
 * drops the reply header instead of failing the send, so the text still goes out.
 */
function resolveReply(
  ctx: MethodContext,
  rec: ChatRecord,
  replyTo: Api.TypeInputReplyTo | undefined,
): { replyTo?: StoredMessage; topicId?: number } {
  if (!(replyTo instanceof Api.InputReplyToMessage)) return {};
  const target = ctx.world.findInChat(rec, replyTo.replyToMsgId, ctx.account);
  const live = target && !target.deleted ? target : undefined;
  if (!rec.chat.forum) return live ? { replyTo: live } : {};
  const topMsgId = replyTo.topMsgId;
  if (live?.service?.action === "topic-create") return { topicId: live.channelId ?? replyTo.replyToMsgId };
  const topicId = topMsgId != null && rec.topics.has(topMsgId) ? topMsgId : live?.topicId;
  return {
    ...(live ? { replyTo: live } : {}),
    ...(topicId !== undefined ? { topicId } : {}),
  };
}
