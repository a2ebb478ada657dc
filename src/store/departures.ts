/**
 * People who went, as far as an intention is concerned (docs/life.md, "People who left"): who left
 * or was removed from a group — the newest such service message, by id — and whom the persona
 * blocked (until she unblocks them, here or in another Telegram app: `updatePeerBlocked`; an ask
 * written after the block is not refused for it). A plan that asked for a reminder before its asker went must
 * not store it when its task runs: the service message's id after the asker's own message says
 * they went after asking (a message of theirs written after they came back is newer and counts).
 * A departure is rare: one upsert each, one indexed read per intention stored; the retention pass
 * forgets left / removed rows a day old (store/retention.ts `DEPARTURE_MS`).
 */
import { transaction, type Db } from "./db";

export type Gone = "left" | "removed" | "blocked";

export class DepartureStore {
  private readonly upsertStmt;
  private readonly unblockStmt;
  private readonly findStmt;
  private readonly dateStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO departures (agent, chat_id, user_id, how, message_id, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, user_id, chat_id) DO UPDATE SET how = excluded.how, at = excluded.at,
         message_id = max(coalesce(message_id, 0), coalesce(excluded.message_id, 0))`,
    );
    this.unblockStmt = db.prepare(
      `DELETE FROM departures WHERE agent = ? AND user_id = ? AND how = 'blocked'`,
    );
    this.findStmt = db.prepare(
      `SELECT how, message_id AS messageId, at FROM departures
       WHERE agent = ? AND user_id = ? AND (chat_id = ? OR how = 'blocked')
       ORDER BY how = 'blocked' DESC LIMIT 2`,
    );
    this.dateStmt = db
      .prepare(`SELECT date FROM messages WHERE agent = ? AND chat_id = ? AND message_id = ?`)
      .pluck();
  }

  /** `userId` left or was removed from the group `chatId` (its service message `messageId`). */
  left(
    chatId: string,
    userId: string,
    how: "left" | "removed",
    messageId: number | undefined,
    at: number,
  ): void {
    transaction(this.db, () => this.upsertStmt.run(this.agent, chatId, userId, how, messageId ?? null, at));
  }

  /** The persona blocked `userId` (in their DM). */
  blocked(userId: string, at: number): void {
    transaction(this.db, () => this.upsertStmt.run(this.agent, userId, userId, "blocked", null, at));
  }

  /** The persona unblocked `userId`. */
  unblocked(userId: string): void {
    transaction(this.db, () => this.unblockStmt.run(this.agent, userId));
  }

  /**
   * Whether `userId`, who asked in message `askedIn` of `chatId`, has gone since: blocked before
   * that message was written (any chat; a message not stored, or no message, counts as before), or
   * left / removed from `chatId` by a service message newer than `askedIn`. Without a message to
   * compare, a departure is not evidence (the due-time check asks Telegram).
   */
  goneSince(chatId: string, userId: string, askedIn: number | undefined): Gone | undefined {
    const rows = this.findStmt.all(this.agent, userId, chatId) as {
      how: Gone;
      messageId: number | null;
      at: number;
    }[];
    for (const r of rows) {
      if (r.how === "blocked") {
        const asked =
          askedIn === undefined
            ? undefined
            : (this.dateStmt.get(this.agent, chatId, askedIn) as number | undefined);
        if (asked === undefined || asked <= r.at) return "blocked";
        continue; // asked after the block: not refused for it
      }
      if (askedIn === undefined || r.messageId === null) continue;
      if (r.messageId > askedIn) return r.how;
    }
    return undefined;
  }
}
