import type { MessageEntity } from "../base/types";
import type { MediaDescriptor } from "../base/media-descriptor";
import type { LinkPreview } from "../base/link-preview";
import { batchedWrite, commitPending, committed, transaction, type Db } from "./db";

/** One stored message of a chat, as the persona saw it. */
export interface StoredMessage {
  readonly chatId: string;
  readonly messageId: number;
  readonly senderId: string;
  readonly senderName: string;
  readonly date: number;
  readonly text: string;
  readonly replyToId?: number;
  readonly topicId?: number;
  readonly isAgent: boolean;
  /** Deleted on Telegram after it was stored (kept, so a reply to it can say so). */
  readonly deleted?: boolean;
  /**
   * The root of the message's reply chain, set by the store at insert from the parent's row (the
   * parent itself when it is not stored or replies to nothing); absent when the message replies
   * to nothing. Read-only for callers: what they pass to `insert` is ignored.
   */
  readonly threadRoot?: number;
  /** The text's mention entities (`mention`, `mentionname`), offsets in UTF-16 code units; absent when none. */
  readonly mentions?: readonly MessageEntity[];
  /** Telegram's partial quote of the replied-to message (what the sender selected), when there was one. */
  readonly quote?: string;
  /**
   * A reply to a message of another chat (no `replyToId`: that id is not this chat's); `quote`
   * is then a part of that foreign message, whose author nobody here can vouch for.
   */
  readonly replyElsewhere?: boolean;
  /** The media the message carried (absent for text). */
  readonly media?: MediaDescriptor;
}

/** The SQL condition of a lane, for {@link MessageStore.lane}. */
export type LaneFilter =
  /** Every message of the chat (a private chat is one conversation). */
  | { readonly kind: "all" }
  /** One reply chain: its root and every message whose chain leads to it. */
  | { readonly kind: "thread"; readonly rootId: number }
  /** One forum topic. */
  | { readonly kind: "topic"; readonly topicId: number };

/** Bounds of a {@link MessageStore.lane} read. */
export interface LaneRead {
  /** Newest message id to include (default: no upper bound). */
  readonly uptoId?: number;
  /** Only messages above this id (default: none excluded). */
  readonly afterId?: number;
  /** At most this many lane messages, the newest ones. */
  readonly limit: number;
  /** How many of the chat's newest messages (≤ uptoId, > afterId) are scanned for the lane. */
  readonly scan: number;
}

interface Row {
  chat_id: string;
  message_id: number;
  sender_id: string;
  sender_name: string;
  date: number;
  text: string;
  reply_to_id: number | null;
  topic_id: number | null;
  is_agent: number;
  deleted: number;
  thread_root: number | null;
  entities: string | null;
  quote: string | null;
  media: string | null;
  reply_elsewhere: number;
}

const toMessage = (r: Row): StoredMessage => ({
  chatId: r.chat_id,
  messageId: r.message_id,
  senderId: r.sender_id,
  senderName: r.sender_name,
  date: r.date,
  text: r.text,
  ...(r.reply_to_id != null ? { replyToId: r.reply_to_id } : {}),
  ...(r.topic_id != null ? { topicId: r.topic_id } : {}),
  isAgent: r.is_agent === 1,
  ...(r.deleted === 1 ? { deleted: true } : {}),
  ...(r.thread_root != null ? { threadRoot: r.thread_root } : {}),
  ...(r.entities != null ? { mentions: JSON.parse(r.entities) as MessageEntity[] } : {}),
  ...(r.quote != null ? { quote: r.quote } : {}),
  ...(r.reply_elsewhere === 1 ? { replyElsewhere: true } : {}),
  ...(r.media != null ? { media: JSON.parse(r.media) as MediaDescriptor } : {}),
});

/** Mention entities as stored: JSON only when there are some (no JSON work for plain messages). */
function mentionsJson(m: StoredMessage): string | null {
  return m.mentions !== undefined && m.mentions.length > 0 ? JSON.stringify(m.mentions) : null;
}

const LANE_WHERE: Record<LaneFilter["kind"], string> = {
  all: "1",
  thread: "(message_id = @key OR thread_root = @key)",
  topic: "topic_id = @key",
};

/**
 * Messages keyed by (agent, chat, message id) — never the bare id, which repeats across
 * supergroups. Statements are prepared once per store: the inbound hot path pays one insert.
 */
export class MessageStore {
  private readonly insertStmt;
  private readonly insertReplyStmt;
  private readonly laneStmts;
  private readonly laneAfterStmts;
  private readonly existsStmt;
  private readonly othersAfterStmt;
  private readonly recentStmt;
  private readonly lastFromOthersStmt;
  private readonly getStmt;
  private readonly renameStmt;
  private readonly highestStmt;
  private readonly authorsStmt;
  private readonly wroteStmt;
  private readonly editStmt;
  private readonly deleteStmt;
  private readonly deleteAnyStmt;
  private readonly linkMediaStmt;
  private readonly previewStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.insertStmt = db.prepare(
      `INSERT OR IGNORE INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, reply_to_id, topic_id, is_agent, entities, quote, media, reply_elsewhere)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?)`,
    );
    // A reply's thread root comes from its parent's row inside the same statement: still one insert.
    this.insertReplyStmt = db.prepare(
      `INSERT OR IGNORE INTO messages (agent, chat_id, message_id, sender_id, sender_name, date, text, reply_to_id, topic_id, is_agent, entities, quote, media, thread_root)
       VALUES (@agent, @chat, @id, @sender, @name, @date, @text, @parent, @topic, @agentFlag, @entities, @quote, @media,
         coalesce((SELECT thread_root FROM messages WHERE agent = @agent AND chat_id = @chat AND message_id = @parent), @parent))`,
    );
    this.laneStmts = Object.fromEntries(
      (Object.keys(LANE_WHERE) as LaneFilter["kind"][]).map((k) => [
        k,
        db.prepare(
          `SELECT * FROM (SELECT * FROM (SELECT * FROM messages WHERE agent = @agent AND chat_id = @chat AND message_id <= @upto AND message_id > @after
             ORDER BY message_id DESC LIMIT @scan) WHERE deleted = 0 AND ${LANE_WHERE[k]} ORDER BY message_id DESC LIMIT @limit) ORDER BY message_id ASC`,
        ),
      ]),
    ) as Record<LaneFilter["kind"], ReturnType<Db["prepare"]>>;
    this.laneAfterStmts = Object.fromEntries(
      (Object.keys(LANE_WHERE) as LaneFilter["kind"][]).map((k) => [
        k,
        db.prepare(
          `SELECT * FROM (SELECT * FROM messages WHERE agent = @agent AND chat_id = @chat AND message_id > @after
             ORDER BY message_id ASC LIMIT @scan) WHERE deleted = 0 AND ${LANE_WHERE[k]} ORDER BY message_id ASC LIMIT @limit`,
        ),
      ]),
    ) as Record<LaneFilter["kind"], ReturnType<Db["prepare"]>>;
    this.existsStmt = db
      .prepare(`SELECT 1 FROM messages WHERE agent = ? AND chat_id = ? AND message_id = ?`)
      .pluck();
    // In a forum only the target's topic counts (a topic is its own room): the target's topic is
    // read inside the statement; without one (an ordinary chat) every later message counts.
    this.othersAfterStmt = db
      .prepare(
        `SELECT 1 FROM messages WHERE agent = @agent AND chat_id = @chat AND message_id > @id AND is_agent = 0 AND deleted = 0
         AND topic_id IS coalesce((SELECT t.topic_id FROM messages t WHERE t.agent = @agent AND t.chat_id = @chat AND t.message_id = @id), topic_id)
         LIMIT 1`,
      )
      .pluck();
    this.recentStmt = db.prepare(
      `SELECT * FROM (SELECT * FROM messages WHERE agent = ? AND chat_id = ? AND message_id <= ? AND deleted = 0
       ORDER BY message_id DESC LIMIT ?) ORDER BY message_id ASC`,
    );
    this.getStmt = db.prepare(`SELECT * FROM messages WHERE agent = ? AND chat_id = ? AND message_id = ?`);
    this.lastFromOthersStmt = db
      .prepare(
        `SELECT date FROM messages WHERE agent = ? AND chat_id = ? AND is_agent = 0 ORDER BY message_id DESC LIMIT 1`,
      )
      .pluck();
    this.editStmt = db.prepare(
      `UPDATE messages SET text = ?, entities = ? WHERE agent = ? AND chat_id = ? AND message_id = ?`,
    );
    // Only a link preview (or no media) follows an edit: a photo's caption edit keeps its photo.
    this.linkMediaStmt = db.prepare(
      `UPDATE messages SET media = ? WHERE agent = ? AND chat_id = ? AND message_id = ?
       AND (media IS NULL OR json_extract(media, '$.kind') = 'webpage')`,
    );
    // updateWebPage names no chat: every stored preview with that id is completed (a scan, but
    // only for links whose preview Telegram had not generated yet; see docs/world.md).
    this.previewStmt = db.prepare(
      `UPDATE messages SET media = json_set(media, '$.webpage', json(@preview))
       WHERE agent = @agent AND media IS NOT NULL AND json_extract(media, '$.kind') = 'webpage'
       AND json_extract(media, '$.webpage.id') = @id`,
    );
    this.deleteStmt = db.prepare(
      `UPDATE messages SET deleted = 1 WHERE agent = ? AND chat_id = ? AND message_id = ?`,
    );
    // DMs and basic groups share the account's id space, so an id alone names the message.
    // (Every supergroup a message was stored from is in `chats` with its type: see chats.ts.)
    this.deleteAnyStmt = db.prepare(
      `UPDATE messages SET deleted = 1 WHERE agent = @agent AND message_id = @id
       AND chat_id NOT IN (SELECT chat_id FROM chats WHERE agent = @agent AND chat_type IN ('supergroup', 'forum'))`,
    );
    this.renameStmt = db.prepare(
      `UPDATE messages SET sender_name = ? WHERE agent = ? AND chat_id = ? AND sender_id = ? AND sender_name = ?`,
    );
    this.highestStmt = db
      .prepare(`SELECT max(message_id) FROM messages WHERE agent = ? AND chat_id = ?`)
      .pluck();
    this.authorsStmt = db
      .prepare(
        `SELECT DISTINCT sender_id FROM messages WHERE agent = ? AND chat_id = ? AND is_agent = 0 LIMIT ?`,
      )
      .pluck();
    this.wroteStmt = db
      .prepare(`SELECT 1 FROM messages WHERE agent = ? AND chat_id = ? AND is_agent = 1 LIMIT 1`)
      .pluck();
  }

  /** Whether the persona has a message of its own in a chat (it wrote there before). */
  wroteIn(chatId: string): boolean {
    return this.wroteStmt.get(this.agent, chatId) !== undefined;
  }

  /** People who wrote in a chat (the persona's own messages left out), at most `limit` of them. */
  authorsOf(chatId: string, limit: number): string[] {
    return this.authorsStmt.all(this.agent, chatId, limit) as string[];
  }

  /**
   * Store a message; returns false when (agent, chat, id) was already stored (a duplicate).
   * The write joins the current group commit (see batchedWrite); call `commit()` when the
   * message must be durable before going on.
   */
  insert(m: StoredMessage): boolean {
    return batchedWrite(this.db, () => this.insertNow(m));
  }

  /**
   * Resolves when what was just inserted is committed (the group commit at the end of this turn);
   * rejects with the error when that commit was rolled back (a full disk): the message is not
   * stored, and its update must not be confirmed. Ask right after `insert`.
   */
  committed(): Promise<void> {
    return committed(this.db);
  }

  /** Run `fn` (e.g. creating the message's task) and commit it with what is pending, as one transaction. */
  commitWith<T>(fn: () => T): T {
    return transaction(this.db, fn);
  }

  /** Make every stored message durable now. */
  commit(): void {
    commitPending(this.db);
  }

  private insertNow(m: StoredMessage): boolean {
    if (m.replyToId !== undefined) {
      return (
        this.insertReplyStmt.run({
          agent: this.agent,
          chat: m.chatId,
          id: m.messageId,
          sender: m.senderId,
          name: m.senderName,
          date: m.date,
          text: m.text,
          parent: m.replyToId,
          topic: m.topicId ?? null,
          agentFlag: m.isAgent ? 1 : 0,
          entities: mentionsJson(m),
          quote: m.quote ?? null,
          media: m.media ? JSON.stringify(m.media) : null,
        }).changes === 1
      );
    }
    const res = this.insertStmt.run(
      this.agent,
      m.chatId,
      m.messageId,
      m.senderId,
      m.senderName,
      m.date,
      m.text,
      m.topicId ?? null,
      m.isAgent ? 1 : 0,
      mentionsJson(m),
      m.quote ?? null,
      m.media ? JSON.stringify(m.media) : null,
      m.replyElsewhere === true ? 1 : 0,
    );
    return res.changes === 1;
  }

  /**
   * A message was edited: its stored text and mention entities follow (one UPDATE; false when it
   * is not stored). The edited message's entities replace the old ones, none clears them: offsets
   * into the old text would cut the new one in the wrong places.
   */
  editText(chatId: string, messageId: number, text: string, mentions?: readonly MessageEntity[]): boolean {
    const entities = mentions !== undefined && mentions.length > 0 ? JSON.stringify(mentions) : null;
    return batchedWrite(
      this.db,
      () => this.editStmt.run(text, entities, this.agent, chatId, messageId).changes > 0,
    );
  }

  /**
   * An edit's link preview (or its absence) replaces the stored one; a message with other media
   * keeps it. Returns whether a stored message changed.
   */
  editLinkPreview(chatId: string, messageId: number, media: MediaDescriptor | undefined): boolean {
    if (media !== undefined && media.kind !== "webpage") return false;
    const json = media ? JSON.stringify(media) : null;
    return batchedWrite(
      this.db,
      () => this.linkMediaStmt.run(json, this.agent, chatId, messageId).changes > 0,
    );
  }

  /** updateWebPage: every stored message showing preview `preview.id` now shows it. Returns how many. */
  completePreview(preview: LinkPreview & { readonly id: string }): number {
    return batchedWrite(
      this.db,
      () =>
        this.previewStmt.run({ agent: this.agent, id: preview.id, preview: JSON.stringify(preview) }).changes,
    );
  }

  /**
   * Messages were deleted. `chatId` undefined: Telegram names no chat for DMs and basic groups,
   * whose ids are unique per account. Returns how many stored messages were marked.
   */
  markDeleted(chatId: string | undefined, messageIds: readonly number[]): number {
    return batchedWrite(this.db, () => {
      let n = 0;
      for (const id of messageIds)
        n += (
          chatId === undefined
            ? this.deleteAnyStmt.run({ agent: this.agent, id })
            : this.deleteStmt.run(this.agent, chatId, id)
        ).changes;
      return n;
    });
  }

  has(chatId: string, messageId: number): boolean {
    return this.existsStmt.get(this.agent, chatId, messageId) !== undefined;
  }

  /**
   * True when someone other than the persona wrote in the message's room after `messageId`: the
   * chat, or in a forum the message's topic (one indexed probe).
   */
  othersWroteAfter(chatId: string, messageId: number): boolean {
    return this.othersAfterStmt.get({ agent: this.agent, chat: chatId, id: messageId }) !== undefined;
  }

  get(chatId: string, messageId: number): StoredMessage | undefined {
    const r = this.getStmt.get(this.agent, chatId, messageId) as Row | undefined;
    return r ? toMessage(r) : undefined;
  }

  /** When someone other than the persona last wrote in a chat (ms), or undefined. A walk back from the newest. */
  lastFromOthers(chatId: string): number | undefined {
    return (this.lastFromOthersStmt.get(this.agent, chatId) as number | undefined) ?? undefined;
  }

  /** The last `limit` messages of a chat up to and including `uptoId`, oldest first (deleted ones left out). */
  recent(chatId: string, uptoId: number, limit: number): StoredMessage[] {
    return (this.recentStmt.all(this.agent, chatId, uptoId, limit) as Row[]).map(toMessage);
  }

  /**
   * The newest `limit` messages of one lane of a chat, oldest first (deleted ones left out), found
   * among the chat's newest `scan` messages in the id range: one query on the primary key, however
   * long the chat. Callers name lanes through context/lanes.ts.
   */
  lane(chatId: string, filter: LaneFilter, read: LaneRead): StoredMessage[] {
    const key = filter.kind === "thread" ? filter.rootId : filter.kind === "topic" ? filter.topicId : null;
    const rows = this.laneStmts[filter.kind].all({
      agent: this.agent,
      chat: chatId,
      upto: read.uptoId ?? Number.MAX_SAFE_INTEGER,
      after: read.afterId ?? -1,
      scan: read.scan,
      limit: read.limit,
      ...(key !== null ? { key } : {}),
    }) as Row[];
    return rows.map(toMessage);
  }

  /**
   * The oldest `limit` messages of one lane right after `afterId`, oldest first (deleted ones left
   * out), among the chat's next `scan` messages: what followed a message in the conversation.
   */
  laneAfter(
    chatId: string,
    filter: LaneFilter,
    afterId: number,
    o: { readonly limit: number; readonly scan: number },
  ): StoredMessage[] {
    const key = filter.kind === "thread" ? filter.rootId : filter.kind === "topic" ? filter.topicId : null;
    const rows = this.laneAfterStmts[filter.kind].all({
      agent: this.agent,
      chat: chatId,
      after: afterId,
      scan: o.scan,
      limit: o.limit,
      ...(key !== null ? { key } : {}),
    }) as Row[];
    return rows.map(toMessage);
  }

  /**
   * A sender first stored under a stand-in name ("user <id>", from an update that carried no user
   * object) gets its real name once it is known — in that chat only (an indexed range).
   */
  renameSender(chatId: string, senderId: string, from: string, to: string): void {
    if (from === to) return;
    batchedWrite(this.db, () => this.renameStmt.run(to, this.agent, chatId, senderId, from));
  }

  /** The highest stored message id of a chat (catch-up's starting point without update state). */
  highestId(chatId: string): number | undefined {
    return (this.highestStmt.get(this.agent, chatId) as number | null) ?? undefined;
  }
}
