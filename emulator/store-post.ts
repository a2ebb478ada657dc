/**
 * Server side of a simulated member writing a message: validation, topic placement, entities.
 */
import { stillFor } from "./file-store";
import { normaliseEntities } from "./mentions";
import { userForInputUser } from "./methods/resolve-peer";
import type { ChatRecord, MediaRecord, StickerDoc, StoredMessage } from "./stored-message";
import type { EmuChat, EmuMediaInput, PostOptions } from "./types";
import type { World } from "./world";

/**
 * Stores what `post()` describes. Mistakes in the test script (non-member sender, unknown topic
 * or reply target) throw plain Errors: they are bugs in the scenario, not server answers.
 */
export function storePost(world: World, o: PostOptions, nowMs: number): StoredMessage {
  const rec = world.record(o.chat);
  if (!rec.members.has(o.from.id))
    throw new Error(`emulator: ${o.from.firstName} is not a member of ${o.chat.peerId}`);
  let topicId = o.topicId;
  if (topicId !== undefined && !rec.topics.has(topicId))
    throw new Error(`emulator: no topic ${topicId} in ${o.chat.peerId}`);
  let replyTo: StoredMessage | undefined;
  if (o.replyTo !== undefined) {
    replyTo = world.findInChat(rec, o.replyTo);
    if (!replyTo || replyTo.deleted)
      throw new Error(`emulator: no message ${o.replyTo} to reply to in ${o.chat.peerId}`);
    // Replying to a topic root is posting in that topic; replying inside a topic stays in it.
    if (replyTo.service?.action === "topic-create") {
      topicId = replyTo.channelId;
      replyTo = undefined;
    } else {
      topicId ??= replyTo.topicId;
    }
  }
  let quote: { text: string; offset: number } | undefined;
  if (o.quote !== undefined) {
    // Telegram refuses a quote that is not in the replied-to message (QUOTE_TEXT_INVALID).
    const offset = replyTo ? replyTo.text.indexOf(o.quote) : -1;
    if (o.quote === "" || offset < 0)
      throw new Error(`emulator: quote ${JSON.stringify(o.quote)} is not in the replied-to message`);
    quote = { text: o.quote, offset };
  }
  const sentAs = o.sendAs ? senderChat(world, rec, o, nowMs) : undefined;
  const forwardOf = o.forward ? original(world, o, o.forward, "forward") : undefined;
  if (forwardOf && o.text !== "" && o.text !== forwardOf.text)
    throw new Error('emulator: a forward carries the original\'s text (pass it, or "")');
  const text = forwardOf ? forwardOf.text : o.text;
  const media = o.media ? attach(world, o.media) : forwardOf ? kept(forwardOf) : undefined;
  const replyElsewhere = o.replyElsewhere ? elsewhere(world, rec, o, o.replyElsewhere) : undefined;
  // A text message with a link gets the server's preview of it (a forward keeps the original's).
  const webPage = media ? undefined : forwardOf ? forwardOf.webPage : world.webPages.forText(text);
  if (o.viaBot && !o.viaBot.bot) throw new Error(`emulator: ${o.viaBot.firstName} is not a bot`);
  return world.storeMessage({
    ...media,
    ...(o.groupedId !== undefined ? { groupedId: o.groupedId } : {}),
    chat: rec,
    fromId: o.from.id,
    ...sentAs,
    text,
    entities: forwardOf
      ? forwardOf.entities
      : normaliseEntities(o.text, o.entities, (u) => userForInputUser(world, o.from, u)?.id),
    date: nowMs,
    ...(replyTo ? { replyTo } : {}),
    ...(quote ? { quote } : {}),
    ...(topicId !== undefined ? { topicId } : {}),
    ...(forwardOf ? { forwardOf } : {}),
    ...(o.viaBot ? { viaBotId: o.viaBot.id } : {}),
    ...(replyElsewhere ? { replyElsewhere } : {}),
    ...(webPage ? { webPage } : {}),
  });
}

/** The message a forward or a reply elsewhere points at: it must exist, and `from` must see it. */
function original(
  world: World,
  o: PostOptions,
  at: { readonly chat: EmuChat; readonly id: number },
  what: string,
): StoredMessage {
  const rec = world.record(at.chat);
  if (!rec.members.has(o.from.id))
    throw new Error(`emulator: ${o.from.firstName} cannot ${what} from ${at.chat.peerId}: not a member`);
  const msg = world.findInChat(rec, at.id, o.from);
  if (!msg || msg.deleted) throw new Error(`emulator: no message ${at.id} in ${at.chat.peerId} to ${what}`);
  return msg;
}

/** A forward keeps the original's file (same file id and unique id). */
function kept(msg: StoredMessage): { sticker: StickerDoc } | { media: MediaRecord } | undefined {
  if (msg.sticker) return { sticker: msg.sticker };
  if (msg.media) return { media: msg.media };
  return undefined;
}

/** A reply to a message of another chat; a quote must occur in it (QUOTE_TEXT_INVALID). */
function elsewhere(
  world: World,
  rec: ChatRecord,
  o: PostOptions,
  at: NonNullable<PostOptions["replyElsewhere"]>,
): NonNullable<StoredMessage["replyElsewhere"]> {
  if (world.record(at.chat) === rec)
    throw new Error("emulator: replyElsewhere names this very chat: use replyTo");
  const msg = original(world, o, at, "reply to");
  if (at.quote === undefined) return { msg };
  const offset = msg.text.indexOf(at.quote);
  if (at.quote === "" || offset < 0)
    throw new Error(`emulator: quote ${JSON.stringify(at.quote)} is not in the replied-to message`);
  return { msg, quote: { text: at.quote, offset } };
}

/** Stores a posted file (or finds the sticker): what the message will show. */
function attach(world: World, m: EmuMediaInput): { sticker: StickerDoc } | { media: MediaRecord } {
  if (m.kind === "sticker") {
    const sticker = world.stickers.byEmoji(m.set, m.emoji);
    if (!sticker) throw new Error(`emulator: no sticker ${m.emoji} in set ${m.set}`);
    return { sticker };
  }
  if (m.kind === "same-as") {
    const from = world.findInChat(world.record(m.chat), m.id);
    if (from?.sticker) return { sticker: from.sticker };
    if (from?.media) return { media: from.media };
    throw new Error(`emulator: message ${m.id} in ${m.chat.peerId} has no file`);
  }
  if (m.kind === "photo") {
    return {
      media: {
        kind: "photo",
        file: world.files.add(m.bytes, "image/jpeg"),
        width: m.width ?? 800,
        height: m.height ?? 600,
      },
    };
  }
  return {
    media: {
      kind: m.kind,
      file: world.files.add(m.bytes, m.mimeType, undefined, stillFor(m.mimeType, m.kind, m.thumb)),
      ...(m.fileName !== undefined ? { fileName: m.fileName } : {}),
      ...(m.duration !== undefined ? { duration: m.duration } : {}),
      ...(m.kind === "voice" && m.waveform ? { waveform: Buffer.from(m.waveform) } : {}),
      ...(m.title !== undefined ? { title: m.title } : {}),
      ...(m.performer !== undefined ? { performer: m.performer } : {}),
    },
  };
}

/**
 * Who a message sent as a chat is from: the group itself (anonymous admin), or a linked
 * broadcast channel — then the post is stored in the channel first and the group gets its
 * automatic forward.
 */
function senderChat(
  world: World,
  rec: ChatRecord,
  o: PostOptions,
  nowMs: number,
): { senderChat: ChatRecord; forwardOf?: StoredMessage } {
  const as = world.record(o.sendAs as EmuChat);
  if (rec.chat.kind !== "supergroup")
    throw new Error(`emulator: only supergroups get messages sent as a chat (${rec.chat.peerId})`);
  if (as === rec) return { senderChat: rec };
  if (as.chat.broadcast && as.linked === rec) {
    const post = world.storeMessage({
      chat: as,
      fromId: o.from.id,
      senderChat: as,
      text: o.text,
      entities: [],
      date: nowMs,
    });
    return { senderChat: as, forwardOf: post };
  }
  throw new Error(`emulator: ${o.sendAs?.peerId} is neither ${rec.chat.peerId} nor its linked channel`);
}
