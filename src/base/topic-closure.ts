/**
 * Whether a forum topic takes her messages (docs/telegram-facts.md "A closed forum topic"): a
 * closed topic takes them only from the supergroup's creator and admins with `manage_topics`
 * (ChatWrites.topics); a topic whose send was refused with TOPIC_CLOSED is closed to her whatever
 * her rights seemed, until it is reopened; a deleted topic (TOPIC_DELETED) takes nothing again.
 */
import type { ChatWrites } from "./chat-writes";

/** A forum's General topic: where its messages naming no topic go (a send without a topic header too). */
export const GENERAL_TOPIC = 1;

/** A topic as she knows it: open, closed (its service message), closed to her (a refused send), deleted. */
export type TopicClosure = "open" | "closed" | "refused" | "deleted";

/** True when she may not write in a topic in this state, with these rights. */
export function topicShut(c: TopicClosure, w: ChatWrites | undefined): boolean {
  return c === "deleted" || c === "refused" || (c === "closed" && w?.topics !== true);
}
