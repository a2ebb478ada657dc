/**
 * The chats a catch-up asks about beyond the update state (telegram/inbound/catch-up.ts): those
 * whose updates come in the account's own box.
 */
import type { Db } from "./db";

export class CatchUpChats {
  private readonly commonStmt;

  constructor(
    db: Db,
    private readonly agent: string,
  ) {
    this.commonStmt = db
      .prepare(`SELECT DISTINCT chat_id FROM messages WHERE agent = ? AND chat_id NOT LIKE '-100%'`)
      .pluck();
  }

  /** Chats with stored messages that are DMs or basic groups (for a `differenceTooLong`). */
  commonChats(): string[] {
    return this.commonStmt.all(this.agent) as string[];
  }
}
