/**
 * Basic groups upgraded to supergroups (docs/chat-upgrades.md): which chat each old group moved
 * to. Kept in memory (a handful of rows) and written through at once; the move itself carries the
 * old chat's pending intentions over in the same transaction. Every row of the old chat is kept:
 * its messages, memories and summaries stay under its id and are read through the mapping.
 */
import { transaction, type Db } from "./db";

export class ChatMoves {
  private readonly next = new Map<string, string>();
  private readonly insertStmt;
  private readonly intentionsStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.insertStmt = db.prepare(
      `INSERT OR IGNORE INTO chat_moves (agent, from_id, to_id, moved_at) VALUES (?, ?, ?, ?)`,
    );
    // A pending intention answers in the new chat; the message it replied to stays in the old one.
    this.intentionsStmt = db.prepare(
      `UPDATE intentions SET chat_id = ?, in_reply_to = NULL, updated_at = ?
       WHERE agent = ? AND chat_id = ? AND state = 'pending'`,
    );
    const rows = db.prepare(`SELECT from_id, to_id FROM chat_moves WHERE agent = ?`).all(agent) as {
      from_id: string;
      to_id: string;
    }[];
    for (const r of rows) this.next.set(r.from_id, r.to_id);
  }

  /**
   * Records that `from` moved to `to` (idempotent: both service messages name the move). True the
   * first time; the old chat's pending intentions then belong to `to`.
   */
  record(from: string, to: string, at: number): boolean {
    if (from === to || this.next.has(from)) return false;
    transaction(this.db, () => {
      this.insertStmt.run(this.agent, from, to, at);
      this.intentionsStmt.run(to, at, this.agent, from);
    });
    this.next.set(from, to);
    return true;
  }

  /** Where a chat's messages go now: its last successor, or undefined when it never moved. */
  successor(chatId: string): string | undefined {
    let at = this.next.get(chatId);
    if (at === undefined) return undefined;
    for (let hops = 0; hops < 8; hops++) {
      const further = this.next.get(at);
      if (further === undefined) break;
      at = further;
    }
    return at;
  }

  /** The chat this one was made from (its basic group), if any. */
  predecessor(chatId: string): string | undefined {
    for (const [from, to] of this.next) if (to === chatId) return from;
    return undefined;
  }
}
