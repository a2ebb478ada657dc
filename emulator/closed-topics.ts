/**
 * Forum topics an admin closed (`emu.chats.closeTopic`): Telegram's `forumTopic.closed`. A member
 * who is not an admin there may not post in a closed topic: a send answers TOPIC_CLOSED (400).
 */
import { restrictionsOf } from "./chat-rights";
import { RpcFault } from "./rpc-fault";
import type { ChatRecord } from "./stored-message";

const closed = new WeakMap<ChatRecord, Set<number>>();

/** Topic `topicId` of the forum is closed (true) or open again (false). */
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
  if (topicId === undefined || !closed.get(rec)?.has(topicId)) return undefined;
  return restrictionsOf(rec).admins.has(userId) ? undefined : new RpcFault("TOPIC_CLOSED");
}
