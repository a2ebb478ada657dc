import { batchedWrite, type Db } from "./db";

/** One reaction on a message: someone's on the persona's message, or the persona's own. */
export interface StoredReaction {
  readonly chatId: string;
  readonly messageId: number;
  /** User (or chat) id of who reacted. */
  readonly reactorId: string;
  readonly emoji: string;
  /** Unix ms it was set (Telegram's date for others' reactions; when the react task ran for the persona's). */
  readonly date: number;
  /** The persona's own reaction. */
  readonly isAgent: boolean;
}

/** A reactor as an update names it. */
export type Reactor = Pick<StoredReaction, "reactorId" | "emoji" | "date" | "isAgent">;

interface Row {
  chat_id: string;
  message_id: number;
  reactor_id: string;
  emoji: string;
  date: number;
  is_agent: number;
}

const toReaction = (r: Row): StoredReaction => ({
  chatId: r.chat_id,
  messageId: r.message_id,
  reactorId: r.reactor_id,
  emoji: r.emoji,
  date: r.date,
  isAgent: r.is_agent === 1,
});

/**
 * Reactions keyed by (agent, chat, message, reactor): one per reactor, as Telegram allows a
 * non-premium account. Only reactions the persona cares about are stored — people's reactions to
 * its own messages (replaced as a whole by each update) and the reactions it made itself.
 */
export class ReactionStore {
  private readonly deleteStmt;
  private readonly deleteOneStmt;
  private readonly upsertStmt;
  private readonly forMessageStmt;
  private readonly inRangeStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.deleteStmt = db.prepare(`DELETE FROM reactions WHERE agent = ? AND chat_id = ? AND message_id = ?`);
    this.deleteOneStmt = db.prepare(
      `DELETE FROM reactions WHERE agent = ? AND chat_id = ? AND message_id = ? AND reactor_id = ?`,
    );
    this.upsertStmt = db.prepare(
      `INSERT INTO reactions (agent, chat_id, message_id, reactor_id, emoji, date, is_agent) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id, message_id, reactor_id) DO UPDATE SET emoji = excluded.emoji, date = excluded.date, is_agent = excluded.is_agent`,
    );
    this.forMessageStmt = db.prepare(
      `SELECT * FROM reactions WHERE agent = ? AND chat_id = ? AND message_id = ? ORDER BY date, reactor_id`,
    );
    this.inRangeStmt = db.prepare(
      `SELECT * FROM (SELECT * FROM reactions WHERE agent = ? AND chat_id = ? AND message_id BETWEEN ? AND ?
       ORDER BY date DESC, message_id DESC LIMIT ?) ORDER BY date, message_id, reactor_id`,
    );
  }

  /**
   * The reactions on a message are now exactly `reactors` (what an update with named reactors
   * says): the others disappear. Joins the current group commit.
   */
  replace(chatId: string, messageId: number, reactors: readonly Reactor[]): void {
    batchedWrite(this.db, () => {
      this.deleteStmt.run(this.agent, chatId, messageId);
      for (const r of reactors)
        this.upsertStmt.run(this.agent, chatId, messageId, r.reactorId, r.emoji, r.date, r.isAgent ? 1 : 0);
    });
  }

  /**
   * An update that counts reactions but names nobody: people's reactions whose emoji is no
   * longer counted are gone; the rest are kept (who they were is still the best knowledge).
   * All of them go when nothing is counted.
   */
  retainCounted(chatId: string, messageId: number, counted: ReadonlySet<string>): void {
    const stale = this.forMessage(chatId, messageId).filter((r) => !r.isAgent && !counted.has(r.emoji));
    if (stale.length === 0) return;
    batchedWrite(this.db, () => {
      for (const r of stale) this.deleteOneStmt.run(this.agent, chatId, messageId, r.reactorId);
    });
  }

  /** The persona reacted (its react task completed): its one reaction on that message. */
  setOwn(chatId: string, messageId: number, selfId: string, emoji: string, date: number): void {
    batchedWrite(this.db, () => this.upsertStmt.run(this.agent, chatId, messageId, selfId, emoji, date, 1));
  }

  forMessage(chatId: string, messageId: number): StoredReaction[] {
    return (this.forMessageStmt.all(this.agent, chatId, messageId) as Row[]).map(toReaction);
  }

  /**
   * Reactions on messages `fromId`..`toId` of a chat: the newest `limit`, returned oldest first
   * (in time order, as history items are).
   */
  inRange(chatId: string, fromId: number, toId: number, limit: number): StoredReaction[] {
    if (limit <= 0 || toId < fromId) return [];
    return (this.inRangeStmt.all(this.agent, chatId, fromId, toId, limit) as Row[]).map(toReaction);
  }
}
