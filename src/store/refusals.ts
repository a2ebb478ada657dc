/**
 * Why an addressed message (a mention, a reply to the persona, a DM) got no task: the policy or
 * cap that refused it on arrival, or its age. Written where the decision is made (the inbound
 * pipeline's addressed path), joining the message's own group commit; plain chatter never gets
 * here. The operator console reads it (store/console-queries.ts); retention deletes a refusal
 * with its message.
 */
import { batchedWrite, type Db } from "./db";

export class RefusalStore {
  private readonly put;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.put = db.prepare(
      `INSERT OR REPLACE INTO refusals (agent, chat_id, msg_id, reason, at) VALUES (?, ?, ?, ?, ?)`,
    );
  }

  /** Keep why the addressed message `msgId` of `chatId` was not handed to planning. */
  record(chatId: string, msgId: number, reason: string, at: number): void {
    batchedWrite(this.db, () => {
      this.put.run(this.agent, chatId, msgId, reason, at);
    });
  }
}
