/**
 * Forum topics' titles. Telegram names a topic only in its service messages — the topic's root
 * (created, its id is the topic id) and each rename — which the adapter hands here as they
 * arrive, live or in a catch-up. Service messages are rare: ordinary messages never come here.
 * The operator console reads the titles (store/console-queries.ts), and the planner names the
 * topic a conversation is in (planning/prompt.ts).
 */
import type { Db } from "./db";

export class TopicStore {
  private readonly put;
  private readonly get;

  constructor(
    db: Db,
    private readonly agent: string,
  ) {
    // The newest service message wins: a late older one (a catch-up) does not undo a rename.
    this.put = db.prepare(
      `INSERT INTO topics (agent, chat_id, topic_id, title, msg_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id, topic_id) DO UPDATE SET title = excluded.title, msg_id = excluded.msg_id
       WHERE excluded.msg_id >= topics.msg_id`,
    );
    this.get = db
      .prepare(`SELECT title FROM topics WHERE agent = ? AND chat_id = ? AND topic_id = ?`)
      .pluck();
  }

  /** The topic's title as its newest service message gave it, else undefined (the planner's chat part). */
  title(chatId: string, topicId: number): string | undefined {
    return this.get.get(this.agent, chatId, topicId) as string | undefined;
  }

  /** Topic `topicId` of `chatId` is called `title` since service message `msgId`. */
  named(chatId: string, topicId: number, title: string, msgId: number): void {
    this.put.run(this.agent, chatId, topicId, title, msgId);
  }
}
