import { batchedWrite, type Db } from "./db";

/** What the store knows of a chat: enough to address it again after a restart. */
export interface ChatInfo {
  readonly chatId: string;
  readonly chatType: string;
  readonly title?: string;
  /** Public @username (without @) of the group, or of the DM partner. */
  readonly username?: string;
  readonly accessHash?: string;
}

interface ChatRow {
  chat_id: string;
  chat_type: string;
  title: string | null;
  access_hash: string | null;
  username: string | null;
}

const toChat = (r: ChatRow): ChatInfo => ({
  chatId: r.chat_id,
  chatType: r.chat_type,
  ...(r.title != null ? { title: r.title } : {}),
  ...(r.username != null ? { username: r.username } : {}),
  ...(r.access_hash != null ? { accessHash: r.access_hash } : {}),
});

/**
 * The chats a persona has seen (the `chats` table, keyed by agent and chat): type, title,
 * username, access hash. Statements are prepared once per store; the inbound hot path's upsert
 * is a Map lookup unless something about the chat changed.
 */
export class ChatStore {
  private readonly upsertStmt;
  private readonly getStmt;
  private readonly listStmt;
  /** Chat type, title, access hash and username last written, so the hot path skips the upsert when nothing changed. */
  private readonly written = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO chats (agent, chat_id, chat_type, title, access_hash, username) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id) DO UPDATE SET chat_type = excluded.chat_type, title = coalesce(excluded.title, chats.title),
         access_hash = coalesce(excluded.access_hash, chats.access_hash), username = coalesce(excluded.username, chats.username)`,
    );
    this.getStmt = db.prepare(
      `SELECT chat_id, chat_type, title, access_hash, username FROM chats WHERE agent = ? AND chat_id = ?`,
    );
    this.listStmt = db.prepare(
      `SELECT chat_id, chat_type, title, access_hash, username FROM chats WHERE agent = ? ORDER BY chat_id`,
    );
  }

  /**
   * Remember a chat's type, title and access hash (written only when they change). A missing
   * title or access hash never erases a stored one. The write joins the current group commit.
   */
  upsert(c: ChatInfo): void {
    const key = `${c.chatType}\u0000${c.title ?? ""}\u0000${c.accessHash ?? ""}\u0000${c.username ?? ""}`;
    const old = this.written.get(c.chatId);
    if (
      old === key ||
      (old !== undefined &&
        old.startsWith(`${c.chatType}\u0000`) &&
        c.title === undefined &&
        c.accessHash === undefined &&
        c.username === undefined)
    )
      return;
    batchedWrite(this.db, () =>
      this.upsertStmt.run(
        this.agent,
        c.chatId,
        c.chatType,
        c.title ?? null,
        c.accessHash ?? null,
        c.username ?? null,
      ),
    );
    this.written.set(c.chatId, key);
  }

  /** Forget what memory says was written (a group commit failed: the file may not have it). */
  forgetCaches(): void {
    this.written.clear();
  }

  get(chatId: string): ChatInfo | undefined {
    const r = this.getStmt.get(this.agent, chatId) as ChatRow | undefined;
    return r ? toChat(r) : undefined;
  }

  /** Every chat the store knows, by id. */
  all(): ChatInfo[] {
    return (this.listStmt.all(this.agent) as ChatRow[]).map(toChat);
  }
}
