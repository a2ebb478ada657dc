/**
 * Why an addressed message (a mention, a reply to the persona, a DM) got no task: the policy or
 * cap that refused it on arrival, or its age. Written where the decision is made (the inbound
 * pipeline's addressed path), joining the message's own group commit; plain chatter never gets
 * here. The operator console reads it (store/console-queries.ts).
 */
import { batchedWrite, type Db } from "./db";
import { DEFAULT_RETAIN_DAYS } from "./retention";

const DAY_MS = 86_400_000;
/** Every this many refusals the rows older than the message retention are dropped. */
const PRUNE_EVERY = 1000;

export class RefusalStore {
  private readonly put;
  private readonly prune;
  private written = 0;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.put = db.prepare(
      `INSERT OR REPLACE INTO refusals (agent, chat_id, msg_id, reason, at) VALUES (?, ?, ?, ?, ?)`,
    );
    this.prune = db.prepare(`DELETE FROM refusals WHERE agent = ? AND at < ?`);
  }

  /** Keep why the addressed message `msgId` of `chatId` was not handed to planning. */
  record(chatId: string, msgId: number, reason: string, at: number): void {
    batchedWrite(this.db, () => {
      this.put.run(this.agent, chatId, msgId, reason, at);
      // Rows are few (refused addressed messages only); a rare scan keeps them bounded.
      if (++this.written % PRUNE_EVERY === 0) this.prune.run(this.agent, at - DEFAULT_RETAIN_DAYS * DAY_MS);
    });
  }
}
