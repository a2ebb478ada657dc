import { transaction, type Db } from "./db";

/** Durable notes the persona keeps about a chat's partner or group (`remember` tasks). */
export class MemoryStore {
  private readonly insertStmt;
  private readonly listStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    // The same fact twice (a plan re-run after a crash, or the model repeating itself) is kept once.
    this.insertStmt = db.prepare(
      `INSERT INTO memories (agent, chat_id, content, created_at)
       SELECT @agent, @chat, @content, @now
       WHERE NOT EXISTS (SELECT 1 FROM memories WHERE agent = @agent AND chat_id = @chat AND content = @content)`,
    );
    this.listStmt = db.prepare(`SELECT content, created_at FROM memories WHERE agent = ? AND chat_id = ? ORDER BY id`);
  }

  /** Store a memory durably at once. */
  add(chatId: string, content: string, now: number): void {
    transaction(this.db, () => this.insertStmt.run({ agent: this.agent, chat: chatId, content, now }));
  }

  list(chatId: string): { content: string; createdAt: number }[] {
    return (this.listStmt.all(this.agent, chatId) as { content: string; created_at: number }[]).map((r) => ({
      content: r.content,
      createdAt: r.created_at,
    }));
  }
}
