/**
 * What the persona answered lately, counted from the task table (so a restart keeps the counts):
 * the caps' answers per chat and per person (policy/caps.ts), and talkative mode's interjections
 * (inbound/addressing-implicit.ts). Each count is one indexed query, two for a supergroup that was
 * a basic group: the old group's rows count as the supergroup's (docs/chat-upgrades.md), so an
 * upgrade mid-hour does not start the hour's counts afresh.
 */
import type { Db } from "./db";

export class AnswerCounts {
  private readonly answersStmt;
  private readonly personStmt;
  private readonly interjectionsStmt;

  constructor(
    db: Db,
    private readonly agent: string,
    /** The chat this one was made from (a basic group upgraded to it), whose rows count as its own. */
    private readonly earlier: (chatId: string) => string | undefined = () => undefined,
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
    return this.sum(chatId, (c) => this.answersStmt.get(this.agent, c, since));
  }

  /** Of those, the rounds whose burst `personId` wrote part of. */
  countPersonAnswersSince(chatId: string, personId: string, since: number): number {
    return this.sum(chatId, (c) => this.personStmt.get(this.agent, c, since, personId));
  }

  /** Interjections (a text or a reaction nobody asked for) in a chat created after `since` (ms). */
  countInterjectionsSince(chatId: string, since: number): number {
    return this.sum(chatId, (c) => this.interjectionsStmt.get(this.agent, c, since));
  }

  /** A count in the chat, plus the same in the basic group it was upgraded from. */
  private sum(chatId: string, count: (chatId: string) => unknown): number {
    const before = this.earlier(chatId);
    return (count(chatId) as number) + (before !== undefined ? (count(before) as number) : 0);
  }
}
