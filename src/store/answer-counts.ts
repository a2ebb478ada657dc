/**
 * What the persona answered lately, counted from the task table (so a restart keeps the counts):
 * the caps' answers per chat and per person (policy/caps.ts), and talkative mode's interjections
 * (inbound/addressing-implicit.ts). Each count is one indexed query.
 */
import type { Db } from "./db";

export class AnswerCounts {
  private readonly answersStmt;
  private readonly personStmt;
  private readonly interjectionsStmt;

  constructor(
    db: Db,
    private readonly agent: string,
  ) {
    this.answersStmt = db
      .prepare(
        `SELECT count(*) FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'received' AND created_at > ? AND status <> 'cancelled'`,
      )
      .pluck();
    this.personStmt = db
      .prepare(
        `SELECT count(*) FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'received' AND created_at > ? AND status <> 'cancelled'
           AND EXISTS (SELECT 1 FROM json_each(tasks.payload, '$.authors') WHERE value = ?)`,
      )
      .pluck();
    this.interjectionsStmt = db
      .prepare(
        `SELECT count(*) FROM tasks WHERE agent = ? AND chat_id = ? AND kind = 'address' AND status = 'done' AND created_at > ?
           AND json_extract(payload, '$.outcome') IN ('interject', 'react')`,
      )
      .pluck();
  }

  /** Answers (planning rounds, cancelled ones aside) in a chat created after `since` (ms). */
  countAnswersSince(chatId: string, since: number): number {
    return this.answersStmt.get(this.agent, chatId, since) as number;
  }

  /** Of those, the rounds whose burst `personId` wrote part of. */
  countPersonAnswersSince(chatId: string, personId: string, since: number): number {
    return this.personStmt.get(this.agent, chatId, since, personId) as number;
  }

  /** Interjections (a text or a reaction nobody asked for) in a chat created after `since` (ms). */
  countInterjectionsSince(chatId: string, since: number): number {
    return this.interjectionsStmt.get(this.agent, chatId, since) as number;
  }
}
