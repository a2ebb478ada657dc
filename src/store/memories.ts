import type { Db } from "./db";

/** Durable notes the persona keeps about a chat's partner or group (`remember` tasks). */
export class MemoryStore {
  private readonly insertStmt;
  private readonly listStmt;

  constructor(db: Db, private readonly agent: string) {
    this.insertStmt = db.prepare(`INSERT INTO memories (agent, chat_id, content, created_at) VALUES (?, ?, ?, ?)`);
    this.listStmt = db.prepare(`SELECT content, created_at FROM memories WHERE agent = ? AND chat_id = ? ORDER BY id`);
  }

  add(chatId: string, content: string, now: number): void {
    this.insertStmt.run(this.agent, chatId, content, now);
  }

  list(chatId: string): { content: string; createdAt: number }[] {
    return (this.listStmt.all(this.agent, chatId) as { content: string; created_at: number }[]).map((r) => ({
      content: r.content,
      createdAt: r.created_at,
    }));
  }
}
