/**
 * Server side of a simulated member writing a message: validation, topic placement, entities.
 */
import { normaliseEntities } from "./mentions.js";
import { userForInputUser } from "./methods/resolve-peer.js";
import type { StoredMessage } from "./stored-message.js";
import type { PostOptions } from "./types.js";
import type { World } from "./world.js";

/**
 * Stores what `post()` describes. Mistakes in the test script (non-member sender, unknown topic
 * or reply target) throw plain Errors: they are bugs in the scenario, not server answers.
 */
export function storePost(world: World, o: PostOptions, nowMs: number): StoredMessage {
  const rec = world.record(o.chat);
  if (!rec.members.has(o.from.id)) throw new Error(`emulator: ${o.from.firstName} is not a member of ${o.chat.peerId}`);
  let topicId = o.topicId;
  if (topicId !== undefined && !rec.topics.has(topicId)) throw new Error(`emulator: no topic ${topicId} in ${o.chat.peerId}`);
  let replyTo: StoredMessage | undefined;
  if (o.replyTo !== undefined) {
    replyTo = world.findInChat(rec, o.replyTo);
    if (!replyTo || replyTo.deleted) throw new Error(`emulator: no message ${o.replyTo} to reply to in ${o.chat.peerId}`);
    // Replying to a topic root is posting in that topic; replying inside a topic stays in it.
    if (replyTo.service?.action === "topic-create") {
      topicId = replyTo.channelId;
      replyTo = undefined;
    } else {
      topicId ??= replyTo.topicId;
    }
  }
  return world.storeMessage({
    chat: rec,
    fromId: o.from.id,
    text: o.text,
    entities: normaliseEntities(o.text, o.entities, (u) => userForInputUser(world, o.from, u)?.id),
    date: nowMs,
    ...(replyTo ? { replyTo } : {}),
    ...(topicId !== undefined ? { topicId } : {}),
  });
}
