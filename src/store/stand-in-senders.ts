/**
 * Senders stored under a stand-in name ("user <id>": an update carried no user object), per chat.
 * The inbound pipeline renames their rows once the real name arrives (MessageStore.renameSender).
 */
import type { Db } from "./db";

export interface StandInSender {
  readonly chatId: string;
  readonly senderId: string;
}

/** Every (chat, sender) of the agent whose stored messages carry the stand-in name. */
export function standInSenders(db: Db, agent: string): StandInSender[] {
  const rows = db
    .prepare(
      `SELECT DISTINCT chat_id, sender_id FROM messages WHERE agent = ? AND sender_name = 'user ' || sender_id`,
    )
    .all(agent) as { chat_id: string; sender_id: string }[];
  return rows.map((r) => ({ chatId: r.chat_id, senderId: r.sender_id }));
}
