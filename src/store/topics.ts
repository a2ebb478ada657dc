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
/**
 * A topic closed to her by a refused send counts as merely closed after this: one plan may try
 * again (rights granted since — `manage_topics` — let her write; refused again, it is shut again).
 */
const REFUSED_FOR_MS = 86_400_000;

export class TopicStore {
  private readonly put;
  private readonly get;
  private readonly putClosed;
  private readonly putRefused;
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
       ON CONFLICT (agent, chat_id, topic_id) DO UPDATE SET closed = excluded.closed, msg_id = excluded.msg_id,
         refused_at = NULL
       WHERE excluded.msg_id > topic_closures.msg_id
         OR (excluded.msg_id = topic_closures.msg_id AND topic_closures.closed <> 2)`,
    );
    // A refusal outranks every service message known when it was written, whatever its id says
    // (the chat's newest message may be older than a stored service message).
    this.putRefused = db.prepare(
      `INSERT INTO topic_closures (agent, chat_id, topic_id, closed, msg_id, refused_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id, topic_id) DO UPDATE SET closed = excluded.closed,
         msg_id = max(topic_closures.msg_id, excluded.msg_id), refused_at = excluded.refused_at
       WHERE topic_closures.closed <> 3`,
    );
    this.getClosed = db.prepare(
      `SELECT closed, refused_at AS refusedAt FROM topic_closures WHERE agent = ? AND chat_id = ? AND topic_id = ?`,
    );
  }

  /** What she knows of the topic: its newest service message, or a send refused there (base/topic-closure.ts). */
  closure(chatId: string, topicId: number, now?: number): TopicClosure {
    const r = this.getClosed.get(this.agent, chatId, topicId) as
      { closed: number; refusedAt: number | null } | undefined;
    const c = CLOSURES[Number(r?.closed ?? 0)] ?? "closed";
    // A refusal a day old: closed, no longer closed to her (her rights decide; base/topic-closure.ts).
    if (c === "refused" && now !== undefined && r?.refusedAt != null && r.refusedAt <= now - REFUSED_FOR_MS)
      return "closed";
    return c;
  }

  /**
   * A send of hers to the topic was refused: TOPIC_CLOSED (closed to her until a reopen service
   * message newer than `newestId`, the chat's newest message she knows, or a day after `at`) or
   * TOPIC_DELETED (for good).
   */
  refused(chatId: string, topicId: number, deleted: boolean, newestId: number, at?: number): void {
    this.putRefused.run(
      this.agent,
      chatId,
      topicId,
      deleted ? 3 : 2,
      deleted ? FOREVER : newestId,
      deleted ? null : (at ?? null),
    );
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
