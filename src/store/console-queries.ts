/**
 * The operator console's reads (src/console/): named queries over what the runtime already
 * stores. Read-only, each bounded by a LIMIT; nothing here runs on the inbound path.
 */
import type { Db } from "./db";
import { ftsQuery } from "./memories";
import { PlanTraceStore, type StoredPlanTrace } from "./plan-traces";
import { ConsoleCosts } from "./console-costs";

/** One chat of the conversations list. */
export interface ConsoleChat {
  readonly chatId: string;
  readonly chatType: string;
  readonly title: string | null;
  readonly username: string | null;
  readonly lastId: number;
  readonly lastDate: number;
  readonly lastSender: string;
  readonly lastText: string;
}

/** A stored message as the console shows it. */
export interface ConsoleMessage {
  readonly messageId: number;
  readonly senderId: string;
  readonly senderName: string;
  readonly date: number;
  readonly text: string;
  readonly replyToId: number | null;
  /** 1: a reply to a message of another chat (its id is not this chat's). */
  readonly replyElsewhere: number;
  /** The quote the sender made of the message replied to, or null. */
  readonly quote: string | null;
  readonly topicId: number | null;
  readonly threadRoot: number | null;
  readonly isAgent: boolean;
  readonly deleted: boolean;
  /** The descriptor as stored (JSON), or null for text. */
  readonly media: string | null;
  /** Mention entities as stored (JSON), or null. */
  readonly entities: string | null;
}

/** An addressed message refused on arrival: why (a policy, a cap, its age). */
export interface ConsoleRefusal {
  readonly messageId: number;
  readonly reason: string;
  readonly at: number;
}

/** A forum topic as its stored messages show it. */
export interface ConsoleTopic {
  readonly topicId: number;
  readonly messages: number;
  readonly lastId: number;
}

/** A task row as the console shows it (payload as stored JSON). */
export interface ConsoleTask {
  readonly id: number;
  readonly kind: string;
  readonly payload: string;
  readonly status: string;
  readonly topicId: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly error: string | null;
  /** The `received` task whose plan made it (null: no plan, or a row older than plan ids). */
  readonly planId: number | null;
  /** A `received` task whose planning ended: its plan's number within the chat. */
  readonly planNo: number | null;
}

/** A reaction on a stored message. */
export interface ConsoleReaction {
  readonly messageId: number;
  readonly reactorId: string;
  readonly emoji: string;
  readonly isAgent: boolean;
}

/** A lane's rolling summary. */
export interface ConsoleSummary {
  readonly lane: string;
  readonly chatId: string;
  readonly version: number;
  readonly fromId: number;
  readonly toId: number;
  readonly content: string;
  readonly updatedAt: number;
}

/** A description cache row (shared by every persona). */
export interface ConsoleMediaRow {
  readonly uniqueId: string;
  readonly kind: string;
  readonly status: string;
  readonly description: string | null;
  readonly stickerSet: string | null;
  readonly model: string | null;
  readonly at: number;
  readonly hasImage: boolean;
}

/** A memory row as the console shows it. */
export interface ConsoleMemory {
  readonly id: number;
  readonly chatId: string;
  readonly subject: string | null;
  readonly toldBy: string | null;
  /** The message it was said in, or null. */
  readonly sourceId: number | null;
  /** 1: the operator wrote or rewrote it. */
  readonly edited: number;
  readonly content: string;
  /** JSON array of chat ids ("*": everywhere), or null. */
  readonly shared: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
}

const bool = (x: unknown) => x === 1 || x === true;

/** The console's named queries for one database. Statements are prepared once. */
export class ConsoleQueries {
  private readonly lastOfChats;
  private readonly page;
  private readonly tasksSince;
  private readonly traces: PlanTraceStore;
  /** What the models cost: per call, day, chat, person and purpose (console-costs.ts). */
  readonly costs: ConsoleCosts;
  private readonly reactionsIn;
  private readonly summaryList;
  private readonly mediaList;
  private readonly mediaImage;
  private readonly openTasks;
  private readonly memAll;
  private readonly memChat;
  private readonly memSearch;
  private readonly describeOne;
  private readonly answered;
  private readonly highestTask;
  private readonly refusedIn;
  private readonly topicList;
  private readonly topicTitleList;
  private readonly topicPage;
  private readonly threadPage;
  private readonly planNo;
  private readonly planByNo;
  private readonly sentBySend;

  constructor(db: Db) {
    // Two index descents per chat (the messages' primary key), not a scan of every message; the
    // newest `limit` kept by SQLite's top-N sort.
    this.lastOfChats = db.prepare(
      `WITH l AS MATERIALIZED (
         SELECT c.chat_id, c.chat_type, c.title, c.username,
           (SELECT max(x.message_id) FROM messages x WHERE x.agent = c.agent AND x.chat_id = c.chat_id) AS last_id
         FROM chats c WHERE c.agent = @agent)
       SELECT l.chat_id AS chatId, l.chat_type AS chatType, l.title, l.username, m.message_id AS lastId,
         m.date AS lastDate, m.sender_name AS lastSender, substr(m.text, 1, 200) AS lastText
       FROM l CROSS JOIN messages m ON m.agent = @agent AND m.chat_id = l.chat_id AND m.message_id = l.last_id
       ORDER BY m.date DESC LIMIT @limit`,
    );
    this.page = db.prepare(
      `SELECT * FROM (SELECT message_id AS messageId, sender_id AS senderId, sender_name AS senderName, date, text,
         reply_to_id AS replyToId, reply_elsewhere AS replyElsewhere, quote, topic_id AS topicId, thread_root AS threadRoot, is_agent AS isAgent, deleted, media, entities
       FROM messages WHERE agent = ? AND chat_id = ? AND message_id < ? ORDER BY message_id DESC LIMIT ?) ORDER BY messageId ASC`,
    );
    this.tasksSince = db.prepare(
      `SELECT id, kind, payload, status, topic_id AS topicId, created_at AS createdAt, updated_at AS updatedAt, error,
         plan_id AS planId, plan_no AS planNo
       FROM tasks WHERE agent = ? AND chat_id = ? AND created_at >= ? ORDER BY id LIMIT ?`,
    );
    this.traces = new PlanTraceStore(db);
    this.costs = new ConsoleCosts(db);
    this.reactionsIn = db.prepare(
      `SELECT message_id AS messageId, reactor_id AS reactorId, emoji, is_agent AS isAgent
       FROM reactions WHERE agent = ? AND chat_id = ? AND message_id >= ? AND message_id <= ? LIMIT 2000`,
    );
    this.summaryList = db.prepare(
      `SELECT lane, chat_id AS chatId, version, from_id AS fromId, to_id AS toId, content, updated_at AS updatedAt
       FROM lane_summaries WHERE agent = ? ORDER BY updated_at DESC LIMIT ?`,
    );
    this.mediaList = db.prepare(
      `SELECT d.unique_id AS uniqueId, d.kind, d.status, d.description, d.sticker_set AS stickerSet, d.model, d.at,
         EXISTS (SELECT 1 FROM media_images i WHERE i.unique_id = d.unique_id) AS hasImage
       FROM media_descriptions d ORDER BY d.at DESC LIMIT ?`,
    );
    this.mediaImage = db.prepare(`SELECT mime, bytes FROM media_images WHERE unique_id = ?`);
    this.openTasks = db.prepare(
      `SELECT count(*) AS open, coalesce(max(updated_at), 0) AS changed FROM tasks
       WHERE agent = ? AND status IN ('pending','running')`,
    );
    // An answer is a plan that sent something: its sends and stickers that went out (a dry run's
    // or a silent plan is none). Tasks older than plan ids count one per message sent.
    this.answered = db
      .prepare(
        `SELECT count(DISTINCT coalesce(plan_id, -id)) FROM tasks
         WHERE agent = ? AND kind IN ('send','sticker') AND status = 'done' AND created_at >= ? AND chat_id <> ?`,
      )
      .pluck();
    this.planNo = db.prepare(`SELECT plan_no FROM tasks WHERE id = ?`).pluck();
    this.planByNo = db
      .prepare(
        `SELECT payload FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'received' AND plan_no = ? LIMIT 1`,
      )
      .pluck();
    this.sentBySend = db
      .prepare(
        `SELECT json_extract(payload, '$.sentId') FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'send'
           AND json_extract(payload, '$.sentId') IN (SELECT value FROM json_each(?))`,
      )
      .pluck();
    this.describeOne = db.prepare(`SELECT status, description FROM media_descriptions WHERE unique_id = ?`);
    this.memAll = db.prepare(
      `SELECT m.id, m.chat_id AS chatId, m.subject, m.told_by AS toldBy, m.source_msg AS sourceId, m.edited, m.content, m.shared, m.created_at AS createdAt, m.updated_at AS updatedAt FROM memories m WHERE m.agent = ? ORDER BY m.updated_at DESC LIMIT 500`,
    );
    this.memChat = db.prepare(
      `SELECT m.id, m.chat_id AS chatId, m.subject, m.told_by AS toldBy, m.source_msg AS sourceId, m.edited, m.content, m.shared, m.created_at AS createdAt, m.updated_at AS updatedAt FROM memories m WHERE m.agent = @agent AND (m.chat_id = @chat OR m.subject = @chat)
       ORDER BY m.updated_at DESC LIMIT 500`,
    );
    this.memSearch = db.prepare(
      `SELECT m.id, m.chat_id AS chatId, m.subject, m.told_by AS toldBy, m.source_msg AS sourceId, m.edited, m.content, m.shared, m.created_at AS createdAt, m.updated_at AS updatedAt FROM memories_fts f JOIN memories m ON m.id = f.rowid
       WHERE memories_fts MATCH @query AND m.agent = @agent AND (@chat IS NULL OR m.chat_id = @chat OR m.subject = @chat)
       ORDER BY rank LIMIT 200`,
    );
    this.highestTask = db.prepare(`SELECT coalesce(max(id), 0) FROM tasks`).pluck();
    this.refusedIn = db.prepare(
      `SELECT msg_id AS messageId, reason, at FROM refusals
       WHERE agent = ? AND chat_id = ? AND msg_id >= ? AND msg_id <= ? LIMIT 2000`,
    );
    // A forum's topics: one index skip-scan step per topic would need an index on topic_id; the
    // newest 5,000 messages of the chat (its primary key, newest first) are grouped instead.
    this.topicList = db.prepare(
      `SELECT topic_id AS topicId, count(*) AS messages, max(message_id) AS lastId FROM (
         SELECT topic_id, message_id FROM messages WHERE agent = ? AND chat_id = ? ORDER BY message_id DESC LIMIT 5000)
       WHERE topic_id IS NOT NULL GROUP BY topic_id ORDER BY lastId DESC LIMIT 200`,
    );
    // The titles the topics' service messages gave (store/topics.ts): few rows per chat.
    this.topicTitleList = db.prepare(
      `SELECT topic_id AS topicId, title FROM topics WHERE agent = ? AND chat_id = ? LIMIT 10000`,
    );
    // One topic or one reply thread (its root and the replies under it), found among the chat's
    // newest `scan` messages below `before` (the primary key, newest first): bounded however long the chat.
    const lanePage = (where: string) =>
      db.prepare(
        `SELECT * FROM (SELECT message_id AS messageId, sender_id AS senderId, sender_name AS senderName, date, text,
           reply_to_id AS replyToId, reply_elsewhere AS replyElsewhere, quote, topic_id AS topicId, thread_root AS threadRoot, is_agent AS isAgent, deleted, media, entities
         FROM (SELECT * FROM messages WHERE agent = @agent AND chat_id = @chat AND message_id < @before
               ORDER BY message_id DESC LIMIT @scan)
         WHERE ${where} ORDER BY message_id DESC LIMIT @limit) ORDER BY messageId ASC`,
      );
    this.topicPage = lanePage("topic_id = @key");
    this.threadPage = lanePage("(thread_root = @key OR message_id = @key)");
  }

  /** Chats by their newest stored message, newest first. */
  chats(agent: string, limit: number): ConsoleChat[] {
    return this.lastOfChats.all({ agent, limit }) as ConsoleChat[];
  }

  /** A chat's messages before `beforeId` (newest `limit` of them), oldest first. */
  messages(agent: string, chatId: string, beforeId: number, limit: number): ConsoleMessage[] {
    return (this.page.all(agent, chatId, beforeId, limit) as Record<string, unknown>[]).map((r) => ({
      ...(r as unknown as ConsoleMessage),
      isAgent: bool(r.isAgent),
      deleted: bool(r.deleted),
    }));
  }

  /**
   * One forum topic's or one reply thread's messages before `beforeId` (the newest `limit` of
   * them among the chat's newest `scan` below it), oldest first.
   */
  laneMessages(
    agent: string,
    chatId: string,
    lane: { readonly topicId: number } | { readonly threadRoot: number },
    beforeId: number,
    limit: number,
    scan = 20_000,
  ): ConsoleMessage[] {
    const stmt = "topicId" in lane ? this.topicPage : this.threadPage;
    const key = "topicId" in lane ? lane.topicId : lane.threadRoot;
    const rows = stmt.all({ agent, chat: chatId, before: beforeId, scan, limit, key }) as Record<
      string,
      unknown
    >[];
    return rows.map((r) => ({
      ...(r as unknown as ConsoleMessage),
      isAgent: bool(r.isAgent),
      deleted: bool(r.deleted),
    }));
  }

  /** A forum's topics seen in its newest 5,000 messages, most recently active first. */
  topics(agent: string, chatId: string): ConsoleTopic[] {
    return this.topicList.all(agent, chatId) as ConsoleTopic[];
  }

  /** A forum's topic titles by topic id, as its topics' service messages named them (store/topics.ts). */
  topicTitles(agent: string, chatId: string): Map<number, string> {
    const rows = this.topicTitleList.all(agent, chatId) as { topicId: number; title: string }[];
    return new Map(rows.map((r) => [r.topicId, r.title]));
  }

  /** Why addressed messages in an id range got no task, as decided on arrival (store/refusals.ts). */
  refusals(agent: string, chatId: string, fromId: number, toId: number): ConsoleRefusal[] {
    return this.refusedIn.all(agent, chatId, fromId, toId) as ConsoleRefusal[];
  }

  /** Tasks of a chat created since `since` (ms), oldest first. */
  tasks(agent: string, chatId: string, since: number, limit = 2000): ConsoleTask[] {
    return this.tasksSince.all(agent, chatId, since, limit) as ConsoleTask[];
  }

  /**
   * The payload of a chat's plan by its number (the `received` task numbered so), or undefined
   * when none is stored (retention deleted it, or no such plan). One read of the chat's tasks by
   * the tasks_chat index.
   */
  /** Which of these message ids of a chat one of the persona's send tasks sent (its sentId). */
  sentBySends(agent: string, chatId: string, ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    return new Set(this.sentBySend.all(agent, chatId, JSON.stringify(ids)) as number[]);
  }

  planPayload(agent: string, chatId: string, planNo: number): string | undefined {
    return this.planByNo.get(agent, chatId, planNo) as string | undefined;
  }

  /** The plan trace of a `received` task (store/plan-traces.ts), if one was kept. */
  planTrace(taskId: number): StoredPlanTrace | undefined {
    return this.traces.get(taskId);
  }

  /** The numbers of plans (by their `received` task's id) that have one. */
  planNumbers(ids: readonly number[]): Map<number, number> {
    const out = new Map<number, number>();
    for (const id of ids.slice(0, 200)) {
      const no = this.planNo.get(id) as number | null | undefined;
      if (typeof no === "number") out.set(id, no);
    }
    return out;
  }

  /** Plans that sent something since `since` (ms): the persona's answers (not its replies in Saved Messages, `selfId`, to the owner's commands). */
  answersSince(agent: string, since: number, selfId: string): number {
    return this.answered.get(agent, since, selfId) as number;
  }

  /** A persona's memories: all (newest first), of a chat or person, or matching words (the FTS index). */
  memories(agent: string, o: { readonly chatId?: string; readonly text?: string }): ConsoleMemory[] {
    if (o.text !== undefined) {
      const query = ftsQuery(o.text);
      if (query === undefined) return [];
      return this.memSearch.all({ agent, chat: o.chatId ?? null, query }) as ConsoleMemory[];
    }
    if (o.chatId !== undefined) return this.memChat.all({ agent, chat: o.chatId }) as ConsoleMemory[];
    return this.memAll.all(agent) as ConsoleMemory[];
  }

  /** Reactions on a chat's messages in an id range. */
  reactions(agent: string, chatId: string, fromId: number, toId: number): ConsoleReaction[] {
    return (this.reactionsIn.all(agent, chatId, fromId, toId) as Record<string, unknown>[]).map((r) => ({
      ...(r as unknown as ConsoleReaction),
      isAgent: bool(r.isAgent),
    }));
  }

  /** Lane summaries, most recently updated first. */
  summaries(agent: string, limit = 200): ConsoleSummary[] {
    return this.summaryList.all(agent, limit) as ConsoleSummary[];
  }

  /** The description cache, newest first. */
  mediaCache(limit = 500): ConsoleMediaRow[] {
    return (this.mediaList.all(limit) as Record<string, unknown>[]).map((r) => ({
      ...(r as unknown as ConsoleMediaRow),
      hasImage: bool(r.hasImage),
    }));
  }

  /** The cached description of a file (AI or unsupported), if any. */
  description(uniqueId: string): { status: string; description: string | null } | undefined {
    return this.describeOne.get(uniqueId) as { status: string; description: string | null } | undefined;
  }

  /** The cached picture of a file, if one is kept. */
  image(uniqueId: string): { mime: string; bytes: Buffer } | undefined {
    return this.mediaImage.get(uniqueId) as { mime: string; bytes: Buffer } | undefined;
  }

  /**
   * What changes when a persona's work moves: its open tasks (count, last change) and the newest
   * task id. Two index reads (the open-task index, the primary key); the live view asks once a
   * second while a page listens.
   */
  workMark(agent: string): string {
    const o = this.openTasks.get(agent) as { open: number; changed: number };
    return `${o.open}:${o.changed}:${this.highestTask.get() as number}`;
  }
}
