/**
 * Forum topics an admin closed (`emu.chats.closeTopic`): Telegram's `forumTopic.closed`. Only an
 * admin with the `manage_topics` right may post in a closed topic (TDLib's forumTopicInfo.is_closed);
 * anyone else's send there answers TOPIC_CLOSED (400).
 */
import { managesTopics } from "./chat-rights";
import { RpcFault } from "./rpc-fault";
import type { ChatRecord } from "./stored-message";

/** Every forum's first topic: its messages carry no topic header (its id is the forum's message 1). */
const GENERAL_TOPIC = 1;

const closed = new WeakMap<ChatRecord, Set<number>>();

/** Topic `topicId` of the forum (General: GENERAL_TOPIC) is closed (true) or open again (false). */
export function setTopicClosed(rec: ChatRecord, topicId: number, isClosed: boolean): void {
  const set = closed.get(rec) ?? new Set<number>();
  if (isClosed) set.add(topicId);
  else set.delete(topicId);
  closed.set(rec, set);
}

/** Telegram's refusal of a send by `userId` into topic `topicId`, else undefined. */
export function topicRefusal(
  rec: ChatRecord,
  userId: number,
  topicId: number | undefined,
): RpcFault | undefined {
  // A send to a forum that names no topic goes to General (topic 1), which an admin may close too.
  const topic = topicId ?? (rec.chat.forum ? GENERAL_TOPIC : undefined);
  if (topic === undefined || !closed.get(rec)?.has(topic)) return undefined;
  return managesTopics(rec, userId) ? undefined : new RpcFault("TOPIC_CLOSED");
}
