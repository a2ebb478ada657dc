/**
 * Forum topics' titles. Telegram names a topic only in its service messages — the topic's root
 * (created, its id is the topic id) and each rename — which the adapter hands here as they
 * arrive, live or in a catch-up. Service messages are rare: ordinary messages never come here.
 * The operator console reads the titles (store/console-queries.ts), and the planner names the
 * topic a conversation is in (planning/prompt.ts).
 */
import type { TopicClosure } from "../base/topic-closure";
import type { Db } from "./db";

/** topic_closures.closed: 0 open, 1 closed (its service message), 2 a send refused TOPIC_CLOSED, 3 deleted. */
const CLOSURES: readonly TopicClosure[] = ["open", "closed", "refused", "deleted"];
/** A deleted topic is never reopened: no later service message outranks it. */
const FOREVER = Number.MAX_SAFE_INTEGER;

export class TopicStore {
  private readonly put;
  private readonly get;
  private readonly putClosed;
  private readonly getClosed;

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
    this.putClosed = db.prepare(
      `INSERT INTO topic_closures (agent, chat_id, topic_id, closed, msg_id) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id, topic_id) DO UPDATE SET closed = excluded.closed, msg_id = excluded.msg_id
       WHERE excluded.msg_id >= topic_closures.msg_id`,
    );
    this.getClosed = db
      .prepare(`SELECT closed FROM topic_closures WHERE agent = ? AND chat_id = ? AND topic_id = ?`)
      .pluck();
  }

  /** What she knows of the topic: its newest service message, or a send refused there (base/topic-closure.ts). */
  closure(chatId: string, topicId: number): TopicClosure {
    return CLOSURES[Number(this.getClosed.get(this.agent, chatId, topicId) ?? 0)] ?? "closed";
  }

  /**
   * A send of hers to the topic was refused: TOPIC_CLOSED (closed to her until a reopen service
   * message newer than `newestId`, the chat's newest message she knows) or TOPIC_DELETED (for good).
   */
  refused(chatId: string, topicId: number, deleted: boolean, newestId: number): void {
    this.putClosed.run(this.agent, chatId, topicId, deleted ? 3 : 2, deleted ? FOREVER : newestId);
  }

  /** Topic `topicId` of `chatId` was closed (or reopened) by service message `msgId`. */
  closedBy(chatId: string, topicId: number, closed: boolean, msgId: number): void {
    this.putClosed.run(this.agent, chatId, topicId, closed ? 1 : 0, msgId);
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
