import { transaction, type Db } from "./db";

/** How long after an unasked remark people's answers count as their answer to it (10 min). */
export const RECEPTION_WINDOW_MS = 10 * 60_000;

/** How the last unasked remark in a chat was received, as stored. */
export interface ReceptionRow {
  readonly chatId: string;
  /** When it went out (ms). */
  readonly spokeAt: number;
  /** `waiting`: its window is open (past the window with nothing said: ignored). */
  readonly verdict: "waiting" | "welcomed" | "rejected";
  /** What showed it: "a reply", "a 😂 reaction", or the stop words as written. */
  readonly said?: string;
  /** A clear "stop": no interjections in the chat until then (ms). */
  readonly stopUntil?: number;
  readonly updatedAt: number;
}

/** How her unasked remarks are received in a chat now (a waiting row past its window reads as ignored). */
export type ReceptionState = "waiting" | "welcomed" | "ignored" | "rejected";

/** The state a row stands for at `now`. */
export function receptionState(r: ReceptionRow, now: number): ReceptionState {
  if (r.verdict === "waiting") return now - r.spokeAt > RECEPTION_WINDOW_MS ? "ignored" : "waiting";
  return r.verdict;
}

/**
 * One row per group: how the persona's last unasked remark there was received (issue 37, point 8).
 * Kept in memory and written through at once, so the inbound path reads a Map, never a table.
 */
export class ReceptionStore {
  private readonly byChat = new Map<string, ReceptionRow>();
  private readonly upsertStmt;
  private readonly deleteStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO reception (agent, chat_id, spoke_at, verdict, said, stop_until, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (agent, chat_id) DO UPDATE SET spoke_at = excluded.spoke_at, verdict = excluded.verdict,
         said = excluded.said, stop_until = excluded.stop_until, updated_at = excluded.updated_at`,
    );
    this.deleteStmt = db.prepare(`DELETE FROM reception WHERE agent = ? AND chat_id = ?`);
    const rows = db
      .prepare(
        `SELECT chat_id, spoke_at, verdict, said, stop_until, updated_at FROM reception WHERE agent = ?`,
      )
      .all(agent) as {
      chat_id: string;
      spoke_at: number;
      verdict: ReceptionRow["verdict"];
      said: string | null;
      stop_until: number | null;
      updated_at: number;
    }[];
    for (const r of rows)
      this.byChat.set(r.chat_id, {
        chatId: r.chat_id,
        spokeAt: r.spoke_at,
        verdict: r.verdict,
        ...(r.said != null ? { said: r.said } : {}),
        ...(r.stop_until != null ? { stopUntil: r.stop_until } : {}),
        updatedAt: r.updated_at,
      });
  }

  get(chatId: string): ReceptionRow | undefined {
    return this.byChat.get(chatId);
  }

  /** Every chat with a row. */
  all(): readonly ReceptionRow[] {
    return [...this.byChat.values()];
  }

  put(r: ReceptionRow): void {
    transaction(this.db, () =>
      this.upsertStmt.run(
        this.agent,
        r.chatId,
        r.spokeAt,
        r.verdict,
        r.said ?? null,
        r.stopUntil ?? null,
        r.updatedAt,
      ),
    );
    this.byChat.set(r.chatId, r);
  }

  /** Forget how she was received in a chat (the owner's reset); whether there was anything. */
  reset(chatId: string): boolean {
    if (!this.byChat.has(chatId)) return false;
    transaction(this.db, () => this.deleteStmt.run(this.agent, chatId));
    this.byChat.delete(chatId);
    return true;
  }
}
