import { transaction, type Db } from "./db";
import { contentWords, isNearDuplicate, STOP_WORDS, wordSet } from "../memory/similarity";

/** One stored memory: about a person (`subject` = their user id) or a note about a chat (no subject). */
export interface Memory {
  readonly id: number;
  /** The user id it is about; undefined for a note about the chat it was stored in. */
  readonly subject?: string;
  /** The chat it was stored in (a note's chat; where a person's memory was learnt). */
  readonly chatId: string;
  readonly content: string;
  readonly createdAt: number;
  /** Last stored or merged. */
  readonly updatedAt: number;
}

/** What `remember` did: a new row, or a near-duplicate merged into an existing one. */
export interface RememberOutcome {
  readonly id: number;
  readonly merged: boolean;
}

interface Row {
  id: number;
  subject: string | null;
  chat_id: string;
  content: string;
  created_at: number;
  updated_at: number | null;
}

const toMemory = (r: Row): Memory => ({
  id: r.id,
  ...(r.subject !== null ? { subject: r.subject } : {}),
  chatId: r.chat_id,
  content: r.content,
  createdAt: r.created_at,
  updatedAt: r.updated_at ?? r.created_at,
});

/** Words of at most this many characters are left out of a full-text query (FTS5 ranks them poorly). */
const MIN_QUERY_WORD = 3;
/** A new memory is compared with at most this many of its scope's newest memories. */
export const DEDUPE_WINDOW = 500;
/** At most this many words of the target messages go into one full-text query. */
const MAX_QUERY_WORDS = 32;

/**
 * Durable memories of one persona (`remember` tasks): about a person — global across chats,
 * keyed by user id — or about a chat. Each row keeps the chat it was stored in and its dates.
 * A near-duplicate of a memory with the same scope (same person; or same chat for notes) is
 * merged into it rather than stacked (see memory/similarity.ts). Rows are indexed by FTS5
 * (table `memories_fts`, kept in step by triggers).
 */
export class MemoryStore {
  private readonly insertStmt;
  private readonly mergeStmt;
  private readonly aboutStmt;
  private readonly scopeSubjectStmt;
  private readonly scopeChatStmt;
  private readonly listStmt;
  private readonly visibleStmt;
  private readonly searchStmt;
  private readonly countStmt;

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.insertStmt = db.prepare(`INSERT INTO memories (agent, chat_id, subject, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`);
    this.mergeStmt = db.prepare(`UPDATE memories SET content = ?, updated_at = ? WHERE id = ?`);
    this.aboutStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND subject = ? ORDER BY id`);
    // Near-duplicates are looked for among the scope's newest DEDUPE_WINDOW memories (bounded work per remember).
    this.scopeSubjectStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND subject = ? ORDER BY updated_at DESC, id DESC LIMIT ${DEDUPE_WINDOW}`);
    this.scopeChatStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND chat_id = ? AND subject IS NULL ORDER BY updated_at DESC, id DESC LIMIT ${DEDUPE_WINDOW}`);
    this.listStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND chat_id = ? ORDER BY id`);
    // What a chat may see: everything stored in it, and memories about the people present.
    this.visibleStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = @agent AND (chat_id = @chat OR subject IN (SELECT value FROM json_each(@present)))
       ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    );
    this.searchStmt = db.prepare(
      `SELECT m.* FROM memories_fts f JOIN memories m ON m.id = f.rowid
       WHERE memories_fts MATCH @query AND m.agent = @agent
         AND (m.chat_id = @chat OR m.subject IN (SELECT value FROM json_each(@present)))
       ORDER BY bm25(memories_fts), m.updated_at DESC LIMIT @limit`,
    );
    this.countStmt = db.prepare(`SELECT count(*) FROM memories WHERE agent = ?`).pluck();
  }

  /**
   * Store a memory durably at once: about `subject` (a user id), or a note about `chatId` when
   * `subject` is undefined. A near-duplicate in the same scope is merged: the wording with more
   * words is kept (the new one on a tie), and its updated-at moves to `now`.
   */
  remember(m: { readonly chatId: string; readonly subject?: string; readonly content: string; readonly now: number }): RememberOutcome {
    const content = m.content.trim();
    return transaction(this.db, () => {
      const scope = (m.subject !== undefined ? this.scopeSubjectStmt.all(this.agent, m.subject) : this.scopeChatStmt.all(this.agent, m.chatId)) as Row[];
      const words = contentWords(content);
      for (const r of scope) {
        const old = contentWords(r.content);
        if (!isNearDuplicate(words, old)) continue;
        const keep = words.size >= old.size ? content : r.content;
        this.mergeStmt.run(keep, m.now, r.id);
        return { id: r.id, merged: true };
      }
      const res = this.insertStmt.run(this.agent, m.chatId, m.subject ?? null, content, m.now, m.now);
      return { id: Number(res.lastInsertRowid), merged: false };
    });
  }

  /** Every memory stored in a chat (notes and memories about people), oldest first (a read API for tools and tests). */
  list(chatId: string): Memory[] {
    return (this.listStmt.all(this.agent, chatId) as Row[]).map(toMemory);
  }

  /** Every memory about a person, wherever it was stored, oldest first. */
  about(subject: string): Memory[] {
    return (this.aboutStmt.all(this.agent, subject) as Row[]).map(toMemory);
  }

  /**
   * Memories a chat may show — stored in it, or about one of `present` — newest first, at
   * most `limit`. A memory about someone absent is never returned unless it was stored here.
   */
  visible(chatId: string, present: readonly string[], limit: number): Memory[] {
    return (this.visibleStmt.all({ agent: this.agent, chat: chatId, present: JSON.stringify(present), limit }) as Row[]).map(toMemory);
  }

  /**
   * The best full-text matches (FTS5, bm25) for the words of `text` among the memories the
   * chat may show (as `visible`). Any of the words may match.
   */
  search(chatId: string, present: readonly string[], text: string, limit: number): Memory[] {
    const query = ftsQuery(text);
    if (query === undefined) return [];
    return (this.searchStmt.all({ agent: this.agent, chat: chatId, present: JSON.stringify(present), query, limit }) as Row[]).map(toMemory);
  }

  count(): number {
    return this.countStmt.get(this.agent) as number;
  }
}

/**
 * An FTS5 query matching any of the text's words: each word quoted (so no user text is read as
 * query syntax), short and repeated words left out. Undefined when nothing is left.
 */
export function ftsQuery(text: string): string | undefined {
  const words = [...wordSet(text)].filter((w) => [...w].length >= MIN_QUERY_WORD && !STOP_WORDS.has(w)).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" OR ");
}
