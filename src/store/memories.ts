import { transaction, type Db } from "./db";
import { contentWords, isNearDuplicate, STOP_WORDS, wordSet } from "../base/word-similarity";

/** Everywhere: a memory the owner widened to every chat. */
export const EVERYWHERE = "*";

/** One stored memory: about a person (`subject` = their user id) or a note about a chat (no subject). */
export interface Memory {
  readonly id: number;
  /** The user id it is about; undefined for a note about the chat it was stored in. */
  readonly subject?: string;
  /** The chat it was learnt in (a note's chat; where a person's memory was said). */
  readonly chatId: string;
  /** Who said it (a user id); undefined for memories stored before this was kept. */
  readonly toldBy?: string;
  /** The message (in `chatId`) it was said in; undefined for older rows and the operator's. */
  readonly sourceId?: number;
  /** Written or rewritten by the operator (the console): the owner's words, not the teller's. */
  readonly edited?: boolean;
  /** Chats the owner widened it to (`*`: everywhere); undefined: only where its source allows. */
  readonly shared?: readonly string[];
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

/**
 * Where a prompt is being made: the chat, its partner when it is a private chat (the chat id is
 * the partner's user id), and the people present in the window.
 */
export interface MemoryViewer {
  readonly chatId: string;
  /** The basic group this supergroup was made from (store/chat-moves.ts): what was learnt there shows here too. */
  readonly earlierChatId?: string;
  readonly partner?: string;
  readonly present: readonly string[];
}

interface Row {
  id: number;
  subject: string | null;
  chat_id: string;
  told_by: string | null;
  source_msg: number | null;
  edited: number;
  shared: string | null;
  content: string;
  created_at: number;
  updated_at: number | null;
}

/** A row of `memories` as read (store/memory-vectors.ts reads them too). */
export type MemoryRow = Row;

export const toMemory = (r: Row): Memory => ({
  id: r.id,
  ...(r.subject !== null ? { subject: r.subject } : {}),
  chatId: r.chat_id,
  ...(r.told_by !== null ? { toldBy: r.told_by } : {}),
  ...(r.source_msg !== null ? { sourceId: r.source_msg } : {}),
  ...(r.edited === 1 ? { edited: true } : {}),
  ...(r.shared !== null ? { shared: JSON.parse(r.shared) as string[] } : {}),
  content: r.content,
  createdAt: r.created_at,
  updatedAt: r.updated_at ?? r.created_at,
});

/** A chat id of a group or channel (Telegram's marked ids are negative); a private chat's is its partner's user id. */
export const isGroupChatId = (chatId: string): boolean => chatId.startsWith("-");

/**
 * The ids of the memories a chat may show, by where each was learnt (one indexed part each):
 * - learnt in this chat (a private chat's own, or the group's, whoever they are about);
 * - in a private chat: what was learnt about its partner in a group (public there, and about them);
 * - what the owner widened to this chat or everywhere — about someone present, or a chat note.
 * A secret told in a private chat therefore stays in that private chat.
 */
export const VISIBLE_IDS = `
  SELECT id FROM memories WHERE agent = @agent AND chat_id IN (@chat, @earlier)
  UNION ALL
  SELECT id FROM memories WHERE agent = @agent AND subject = @partner AND chat_id LIKE '-%'
  UNION ALL
  SELECT id FROM memories WHERE agent = @agent AND shared IS NOT NULL
    AND (subject IS NULL OR subject IN (SELECT value FROM json_each(@present)))
    AND EXISTS (SELECT 1 FROM json_each(memories.shared) WHERE value IN ('${EVERYWHERE}', @chat))`;

/** Words of at most this many characters are left out of a full-text query (FTS5 ranks them poorly). */
const MIN_QUERY_WORD = 3;
/** A new memory is compared with at most this many of its scope's newest memories. */
const DEDUPE_WINDOW = 500;
/** At most this many words of the target messages go into one full-text query. */
const MAX_QUERY_WORDS = 32;

/**
 * Durable memories of one persona (`remember` tasks): about a person — keyed by user id — or
 * about a chat. Each row keeps where it was learnt (the chat), who said it and when, and is shown
 * only where that source allows (VISIBLE_IDS), or where the owner widened it to. A
 * near-duplicate with the same source (the same person, said by the same person in the same
 * chat; or the same chat for notes) is merged into it rather than stacked (see
 * memory/similarity.ts). Rows are indexed by FTS5 (table `memories_fts`, kept in step by
 * triggers).
 */
export class MemoryStore {
  private readonly insertStmt;
  private readonly mergeStmt;
  private readonly editStmt;
  private readonly aboutStmt;
  private readonly scopeSubjectStmt;
  private readonly scopeChatStmt;
  private readonly listStmt;
  private readonly visibleStmt;
  private readonly searchStmt;
  private readonly countStmt;
  private readonly getStmt;
  private readonly shareStmt;
  private readonly ownerListStmt;
  private readonly deleteStmt;
  private readonly aboutVisibleStmt;
  private readonly subjectsStmt;
  /** Told after a memory is stored, merged or edited (memory/meaning.ts embeds it then, outside the store). */
  private readonly changeListeners = new Set<() => void>();

  constructor(
    private readonly db: Db,
    private readonly agent: string,
  ) {
    this.insertStmt = db.prepare(
      `INSERT INTO memories (agent, chat_id, subject, told_by, content, created_at, updated_at, source_msg, edited) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.mergeStmt = db.prepare(
      `UPDATE memories SET content = ?, updated_at = ?, source_msg = coalesce(?, source_msg) WHERE id = ?`,
    );
    this.editStmt = db.prepare(`UPDATE memories SET content = ?, updated_at = ?, edited = 1 WHERE id = ?`);
    this.aboutStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND subject = ? ORDER BY id`);
    // Near-duplicates are looked for among the source's newest DEDUPE_WINDOW memories (bounded
    // work per remember). The source — who said it where — is part of the scope, for notes about
    // a chat too: a fact told in private never merges into (and so never travels with) one said
    // in a group, and nobody's words are rewritten by someone else's while still reading as
    // theirs. What the owner widened (shared) or wrote (edited) is never merged into: it stays
    // as the owner saw it when deciding.
    this.scopeSubjectStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = ? AND subject = ? AND chat_id = ? AND told_by IS ?
         AND shared IS NULL AND edited = 0 ORDER BY updated_at DESC, id DESC LIMIT ${DEDUPE_WINDOW}`,
    );
    this.scopeChatStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = ? AND chat_id = ? AND subject IS NULL AND told_by IS ?
         AND shared IS NULL AND edited = 0 ORDER BY updated_at DESC, id DESC LIMIT ${DEDUPE_WINDOW}`,
    );
    this.listStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND chat_id = ? ORDER BY id`);
    this.visibleStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = @agent AND id IN (${VISIBLE_IDS}) ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    );
    this.searchStmt = db.prepare(
      `SELECT m.* FROM memories_fts f JOIN memories m ON m.id = f.rowid
       WHERE memories_fts MATCH @query AND m.agent = @agent AND m.id IN (${VISIBLE_IDS})
       ORDER BY bm25(memories_fts), m.updated_at DESC LIMIT @limit`,
    );
    this.aboutVisibleStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = @agent AND subject IN (SELECT value FROM json_each(@subjects))
         AND id IN (${VISIBLE_IDS}) ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    );
    this.subjectsStmt = db
      .prepare(
        `SELECT DISTINCT subject FROM memories WHERE agent = @agent AND subject IS NOT NULL
           AND id IN (${VISIBLE_IDS}) LIMIT @limit`,
      )
      .pluck();
    this.countStmt = db.prepare(`SELECT count(*) FROM memories WHERE agent = ?`).pluck();
    this.getStmt = db.prepare(`SELECT * FROM memories WHERE agent = ? AND id = ?`);
    this.shareStmt = db.prepare(`UPDATE memories SET shared = ? WHERE agent = ? AND id = ?`);
    this.deleteStmt = db.prepare(`DELETE FROM memories WHERE agent = ? AND id = ?`);
    // What the owner sees for a chat: what was learnt there, and (a private chat) what was learnt about its partner anywhere.
    this.ownerListStmt = db.prepare(
      `SELECT * FROM memories WHERE agent = @agent AND (chat_id = @chat OR subject = @partner) ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    );
  }

  /**
   * Store a memory durably at once: about `subject` (a user id), or a note about `chatId` when
   * `subject` is undefined, said by `toldBy` in `chatId`. A near-duplicate from the same source
   * is merged: the wording with more words is kept (the new one on a tie), and its updated-at
   * moves to `now`.
   */
  remember(m: {
    readonly chatId: string;
    readonly subject?: string;
    readonly toldBy?: string;
    /** The message (in chatId) it was said in. */
    readonly sourceId?: number;
    readonly content: string;
    readonly now: number;
    /** The operator writes it (the console): kept as the owner's words, never merged. */
    readonly byOwner?: boolean;
  }): RememberOutcome {
    const content = m.content.trim();
    const outcome = transaction(this.db, (): RememberOutcome => {
      const scope = m.byOwner
        ? []
        : ((m.subject !== undefined
            ? this.scopeSubjectStmt.all(this.agent, m.subject, m.chatId, m.toldBy ?? null)
            : this.scopeChatStmt.all(this.agent, m.chatId, m.toldBy ?? null)) as Row[]);
      const words = contentWords(content);
      for (const r of scope) {
        const old = contentWords(r.content);
        if (!isNearDuplicate(words, old)) continue;
        const keep = words.size >= old.size ? content : r.content;
        this.mergeStmt.run(keep, m.now, keep === content ? (m.sourceId ?? null) : null, r.id);
        return { id: r.id, merged: true };
      }
      const res = this.insertStmt.run(
        this.agent,
        m.chatId,
        m.subject ?? null,
        m.toldBy ?? null,
        content,
        m.now,
        m.now,
        m.sourceId ?? null,
        m.byOwner ? 1 : 0,
      );
      return { id: Number(res.lastInsertRowid), merged: false };
    });
    this.changed();
    return outcome;
  }

  /** Be told after each memory stored, merged or edited (never inside the store's transaction). Returns unsubscribe. */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.changeListeners) l();
  }

  /** Every memory stored in a chat (notes and memories about people), oldest first (a read API for tools and tests). */
  list(chatId: string): Memory[] {
    return (this.listStmt.all(this.agent, chatId) as Row[]).map(toMemory);
  }

  /** Every memory about a person, wherever it was stored, oldest first. */
  about(subject: string): Memory[] {
    return (this.aboutStmt.all(this.agent, subject) as Row[]).map(toMemory);
  }

  get(id: number): Memory | undefined {
    const r = this.getStmt.get(this.agent, id) as Row | undefined;
    return r ? toMemory(r) : undefined;
  }

  /**
   * The owner widens a memory: to one more chat, or everywhere (EVERYWHERE). Returns the
   * memory as it is now, or undefined when there is no such memory.
   */
  share(id: number, chatId: string): Memory | undefined {
    return transaction(this.db, () => {
      const m = this.get(id);
      if (!m) return undefined;
      const shared =
        chatId === EVERYWHERE
          ? [EVERYWHERE]
          : m.shared?.includes(EVERYWHERE)
            ? m.shared
            : [...new Set([...(m.shared ?? []), chatId])];
      this.shareStmt.run(JSON.stringify(shared), this.agent, id);
      return { ...m, shared };
    });
  }

  /** Back to where its source allows. Returns the memory, or undefined when there is none. */
  unshare(id: number): Memory | undefined {
    return transaction(this.db, () => {
      const m = this.get(id);
      if (!m) return undefined;
      this.shareStmt.run(null, this.agent, id);
      const { shared: _shared, ...rest } = m;
      return rest;
    });
  }

  /**
   * The owner rewrites a memory (the operator console): its text, updated-at moves to `now`, and
   * it is marked as edited — the owner's words from now on, not its teller's. Returns it as it
   * is now, or undefined when there is none (or the text is empty).
   */
  edit(id: number, content: string, now: number): Memory | undefined {
    const text = content.trim();
    if (text === "") return undefined;
    const edited = transaction(this.db, () => {
      if (!this.get(id)) return undefined;
      this.editStmt.run(text, now, id);
      return this.get(id);
    });
    if (edited) this.changed();
    return edited;
  }

  /** The owner deletes a memory (the operator console). True when there was one. */
  forget(id: number): boolean {
    return this.deleteStmt.run(this.agent, id).changes > 0;
  }

  /** For the owner: what was learnt in a chat and, for a private chat, about its partner anywhere; newest first. */
  forOwner(chatId: string, limit: number): Memory[] {
    return (
      this.ownerListStmt.all({
        agent: this.agent,
        chat: chatId,
        partner: isGroupChatId(chatId) ? null : chatId,
        limit,
      }) as Row[]
    ).map(toMemory);
  }

  /** Memories a chat may show (VISIBLE_IDS), newest first, at most `limit`. */
  visible(v: MemoryViewer, limit: number): Memory[] {
    return (this.visibleStmt.all({ ...this.params(v), limit }) as Row[]).map(toMemory);
  }

  /** Memories a chat may show about these people (user ids), newest first, at most `limit`. */
  aboutVisible(v: MemoryViewer, subjects: readonly string[], limit: number): Memory[] {
    if (subjects.length === 0) return [];
    return (
      this.aboutVisibleStmt.all({ ...this.params(v), subjects: JSON.stringify(subjects), limit }) as Row[]
    ).map(toMemory);
  }

  /** The people a chat may show memories about (user ids), at most `limit`. */
  subjectsVisible(v: MemoryViewer, limit: number): string[] {
    return this.subjectsStmt.all({ ...this.params(v), limit }) as string[];
  }

  /**
   * The best full-text matches (FTS5, bm25) for the words of `text` among the memories the
   * chat may show (as `visible`). Any of the words may match.
   */
  search(v: MemoryViewer, text: string, limit: number): Memory[] {
    const query = ftsQuery(text);
    if (query === undefined) return [];
    return (this.searchStmt.all({ ...this.params(v), query, limit }) as Row[]).map(toMemory);
  }

  count(): number {
    return this.countStmt.get(this.agent) as number;
  }

  private params(v: MemoryViewer): ViewerParams {
    return viewerParams(this.agent, v);
  }
}

/** The named parameters of {@link VISIBLE_IDS}. */
interface ViewerParams {
  agent: string;
  chat: string;
  earlier: string;
  partner: string | null;
  present: string;
}

/** The parameters of {@link VISIBLE_IDS} for a viewer (store/memory-vectors.ts scopes its query with them too). */
export function viewerParams(agent: string, v: MemoryViewer): ViewerParams {
  return {
    agent,
    chat: v.chatId,
    earlier: v.earlierChatId ?? v.chatId,
    partner: v.partner ?? null,
    present: JSON.stringify(v.present),
  };
}

/**
 * An FTS5 query matching any of the text's words: each word quoted (so no user text is read as
 * query syntax), short and repeated words left out. Undefined when nothing is left.
 */
export function ftsQuery(text: string): string | undefined {
  const words = [...wordSet(text)]
    .filter((w) => [...w].length >= MIN_QUERY_WORD && !STOP_WORDS.has(w))
    .slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(" OR ");
}
