/**
 * Which memories go into a prompt, within a token budget (counted with the one estimator,
 * context/tokens.ts). In order of priority:
 *
 *  1. curated memories of the people present (the targets' authors first), where their file's
 *     scope allows, at most half the budget;
 *  2. memories about the people the messages being answered speak of without having written
 *     them (mentioned, replied to, named: "cookies for carol's birthday?"), the newest two each;
 *  3. the top-k matches for the messages being answered: by their words (FTS5, bm25) and, when
 *     the plan's query was embedded, by meaning (the nearest memories, store/memory-vectors.ts),
 *     fused (hybrid.ts: reciprocal rank fusion, with recency and the people in view);
 *  4. what the persona said about itself here (`about: "me"`), the newest two;
 *  5. the newest other memories the chat may show.
 *
 * What a chat may show is decided by where each memory was learnt (store/memories.ts): learnt
 * here; in a private chat, what was learnt about its partner in a group; what the owner widened
 * here. A secret told in private never reaches a group, whoever is present there. A memory about
 * a person that someone else said is shown as that person's statement ("dave said in Sandbox").
 */
import { formatMemoryEnvelope, type MemoryNote, type MemoryPlace } from "../context/envelope";
import type { Speaker } from "../context/speaker";
import { estimateTokens } from "../context/tokens";
import { isGroupChatId, type Memory, type MemoryStore } from "../store/memories";
import { curatedVisible, type CuratedMemories } from "./curated";
import { fuse, HYBRID_CANDIDATES, nearEnough } from "./hybrid";
import type { QueryMeaning } from "./meaning";

/** Tokens the memory lines of one prompt may take (with the summary's budget, set so that bench P4 stays ≤ 1.3). */
export const MEMORY_BUDGET_TOKENS = 150;
/** Full-text matches considered per prompt. */
const MEMORY_TOP_K = 6;
/** Memories per person spoken of, and of the persona's own, shown before the newest others. */
const PER_PERSON = 2;
/** Newest visible memories looked at after the matches (the budget stops well before). */
const RECENT_CANDIDATES = 100;

export interface RecallInput {
  readonly store: MemoryStore;
  readonly curated: CuratedMemories;
  readonly chatId: string;
  /** In a private chat, its partner (the chat id is their user id). */
  readonly partner?: string;
  /** The basic group this supergroup was made from (store/chat-moves.ts): its chat notes are recalled too. */
  readonly earlierChatId?: string;
  /** User ids present in the lane's window, the targets' authors first. */
  readonly present: readonly string[];
  /** People the messages being answered speak of without having written them (memory/subject.ts). */
  readonly spokenOf?: readonly string[];
  /** The persona (its account id and how it is written): its own memories are shown as its own. */
  readonly self?: Speaker;
  /** A group's title, to say where a memory from another chat was learnt. */
  readonly chatTitle?: (chatId: string) => string | undefined;
  /** A person as the prompt names them (the speaker directory: one formatter for every reference). */
  readonly speakerOf: (userId: string) => Speaker;
  /** The text of the messages being answered (the full-text query). */
  readonly query: string;
  /** The query embedded (memory/meaning.ts): the matches are by meaning too. */
  readonly meaning?: QueryMeaning;
  readonly budgetTokens?: number;
  readonly topK?: number;
}

/**
 * The memories for a prompt, most relevant first, within the budget (each costed as the line
 * the prompt renders, context/envelope.ts `formatMemoryEnvelope`).
 */
export function recall(i: RecallInput): MemoryNote[] {
  const budget = i.budgetTokens ?? MEMORY_BUDGET_TOKENS;
  const notes: MemoryNote[] = [];
  let used = 0;
  const take = (note: MemoryNote, limit = budget): boolean => {
    const cost = estimateTokens(formatMemoryEnvelope(note)) + 1; // + the newline
    if (used + cost > limit) return false;
    notes.push(note);
    used += cost;
    return true;
  };

  for (const userId of i.present) {
    const file = i.curated.get(userId);
    if (!file || !curatedVisible(file.scope, userId, i.chatId)) continue;
    for (const text of file.lines)
      take(
        { about: i.speakerOf(userId), date: "curated", text, toldAs: "the owner" },
        Math.floor(budget / 2),
      );
  }
  const seen = new Set<number>();
  const place = (chatId: string): MemoryPlace | undefined => {
    // The basic group this supergroup was made from is the same group.
    if (chatId === i.chatId || chatId === i.earlierChatId) return undefined;
    if (!isGroupChatId(chatId)) return { kind: "private" };
    const title = i.chatTitle?.(chatId);
    return { kind: "group", ...(title !== undefined ? { title } : {}) };
  };
  const note = (m: Memory): MemoryNote => {
    const where = place(m.chatId);
    // Someone else's statement about the person: shown as theirs, with where they said it.
    const other = m.subject !== undefined && m.toldBy !== undefined && m.toldBy !== m.subject;
    const own = m.subject !== undefined && m.subject === i.self?.id;
    // Every line names its teller: "you" for what the persona said, someone else by name (a
    // claim about the persona included), "someone" for an older row that kept none.
    const byPersona = m.toldBy !== undefined ? m.toldBy === i.self?.id : own;
    return {
      ...(own
        ? { about: i.self!, self: true }
        : m.subject !== undefined
          ? { about: i.speakerOf(m.subject) }
          : {}),
      date: m.updatedAt,
      text: m.content,
      ...(m.edited === true
        ? {}
        : byPersona
          ? { toldAs: "you" as const }
          : m.toldBy !== undefined
            ? { teller: i.speakerOf(m.toldBy) }
            : { toldAs: "unknown" as const }),
      ...(where && (other || m.subject === undefined) ? { where } : {}),
      ...(m.edited === true ? { edited: true } : {}),
    };
  };
  const viewer = {
    chatId: i.chatId,
    // The persona is "present" everywhere, for what the owner widened of its own memories.
    present: i.self !== undefined ? [...i.present, i.self.id] : i.present,
    ...(i.partner !== undefined ? { partner: i.partner } : {}),
    ...(i.earlierChatId !== undefined ? { earlierChatId: i.earlierChatId } : {}),
  };
  const first = (subject: string, ms: readonly Memory[]) =>
    ms.filter((m) => m.subject === subject).slice(0, PER_PERSON);
  const spokenOf = i.spokenOf ?? [];
  const about = i.store.aboutVisible(viewer, spokenOf, PER_PERSON * spokenOf.length * 4);
  for (const who of spokenOf)
    for (const m of first(who, about)) {
      seen.add(m.id);
      take(note(m));
    }
  const topK = i.topK ?? MEMORY_TOP_K;
  const matches = i.meaning
    ? fuse({
        words: i.store.search(viewer, i.query, HYBRID_CANDIDATES),
        meaning: nearEnough(i.meaning.nearest(viewer, HYBRID_CANDIDATES)),
        // The people in the window (not the persona, "present" in the viewer only for scopes).
        present: i.present,
        limit: topK,
      })
    : i.store.search(viewer, i.query, topK);
  for (const m of matches) {
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    take(note(m));
  }
  if (i.self !== undefined)
    for (const m of i.store.aboutVisible(viewer, [i.self.id], PER_PERSON)) {
      if (seen.has(m.id)) continue;
      seen.add(m.id);
      take(note(m));
    }
  for (const m of i.store.visible(viewer, RECENT_CANDIDATES)) {
    if (seen.has(m.id)) continue;
    take(note(m));
    if (budget - used < 8) break;
  }
  return notes;
}
