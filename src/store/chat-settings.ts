import type { GroupMode } from "../config/persona";
import { transaction, type Db } from "./db";

/** The group modes the owner can set with `/mode` (the persona's `# Group Mode` values). */
export type ChatMode = GroupMode;

/** What the owner set for one chat (or, under {@link ALL_CHATS}, for the whole persona). */
export interface ChatSettings {
  readonly paused: boolean;
  readonly mode?: ChatMode;
  /** Owner takeover: the persona stays silent in the chat until this time (ms). */
  readonly silentUntil?: number;
}

/** The key of persona-wide settings (`/pause` and `/mode` without a chat). */
export const ALL_CHATS = "*";

const EMPTY: ChatSettings = Object.freeze({ paused: false });

/**
 * Per-chat settings the owner controls, kept in memory and written through to SQLite at once,
 * so the inbound path reads a Map, never a table, and a restart keeps them.
 */
export class ChatSettingsStore {
  private readonly byChat = new Map<string, ChatSettings>();
  private readonly upsertStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO chat_settings (agent, chat_id, paused, mode, silent_until) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id) DO UPDATE SET paused = excluded.paused, mode = excluded.mode, silent_until = excluded.silent_until`,
    );
    const rows = db
      .prepare(`SELECT chat_id, paused, mode, silent_until FROM chat_settings WHERE agent = ?`)
      .all(agent) as {
      chat_id: string;
      paused: number;
      mode: string | null;
      silent_until: number | null;
    }[];
    for (const r of rows) {
      this.byChat.set(r.chat_id, {
        paused: r.paused === 1,
        ...(r.mode != null ? { mode: r.mode as ChatMode } : {}),
        ...(r.silent_until != null ? { silentUntil: r.silent_until } : {}),
      });
    }
  }

  get(chatId: string): ChatSettings {
    return this.byChat.get(chatId) ?? EMPTY;
  }

  /** Change some settings of a chat (durably, now). */
  update(chatId: string, change: Partial<ChatSettings>): ChatSettings {
    const merged = { ...this.get(chatId), ...change };
    const next: ChatSettings = {
      paused: merged.paused,
      ...(merged.mode !== undefined ? { mode: merged.mode } : {}),
      ...(merged.silentUntil !== undefined ? { silentUntil: merged.silentUntil } : {}),
    };
    transaction(this.db, () =>
      this.upsertStmt.run(
        this.agent,
        chatId,
        next.paused ? 1 : 0,
        next.mode ?? null,
        next.silentUntil ?? null,
      ),
    );
    this.byChat.set(chatId, next);
    return next;
  }

  /** Every chat with settings (the persona-wide entry included). */
  entries(): [string, ChatSettings][] {
    return [...this.byChat.entries()];
  }
}
