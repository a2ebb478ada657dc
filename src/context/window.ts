/**
 * What a member scrolling up would read: which stored messages go into a planning prompt.
 *
 * - **The room** (the chat; a forum topic; a private chat) shows its newest messages, every one of
 *   them, in message order — replies to each other included (a reply is how people talk in the
 *   room, not a separate room). At least `# History Window` (16) of them; when the room's summary
 *   covers less than that, the window reaches back to the last message the summary covers, up to
 *   twice the window ({@link recentStart}), so no message falls between summary and window; when
 *   more are unsummarised, planning has the summary written first (context/plan-context.ts). The
 *   addressed messages (targets) are part of it, marked where they are, and do not count; it
 *   always reaches back to the first of them in the room's read, so what is being answered and
 *   everything after it are in the room's part, in order (never shown as an older selection).
 * - **Earlier** (only what the conversation refers to, older than the room's part):
 *   - the target's reply thread, when its earlier messages are older than the room's part: the
 *     thread's root and the chain the target answers first, then the thread's other newest
 *     messages, up to `# Thread Window` (8);
 *   - a message a target replies to, with a few messages before it (what it was answering) and
 *     the room's flow after it;
 *   - in groups, older messages that involved the persona (its own, replies to it, mentions of
 *     it), the newest `# Focused Window` (8).
 * The group mode decides *when* the persona answers, never what it sees when it does.
 */
import type { StoredMessage } from "../store/messages";

/** Messages from outside the room's part (earlier) are cut to this many code points of text. */
export const INJECTED_MAX_CODE_POINTS = 280;
/**
 * History messages that are not being answered are cut to this many code points of text: a
 * member posting walls of text cannot make every answer to someone else cost thousands of tokens
 * (the messages answered are shown whole; Telegram's own limit is 4,096 characters).
 */
export const HISTORY_MAX_CODE_POINTS = 800;
/** Messages a replied-to message is shown with: before it (what it answered) and after it (the room's flow). */
export const AROUND_REPLIED = { before: 2, after: 3 } as const;
/** At most this many replied-to messages bring their surroundings (the newest targets' first). */
export const MAX_REPLIED_CONTEXTS = 2;

/** Who the persona is, to tell which messages involved it. */
export interface PersonaIdentity {
  readonly selfId: string;
  /** Its @username without `@`, when known. */
  readonly username?: string;
  /** True when the text names the persona (name or alias as a whole word). */
  readonly mentionsName: (text: string) => boolean;
}

interface WindowSizes {
  readonly history: number;
  readonly thread: number;
  readonly focused: number;
}

/** True when a stored message mentions the persona (entities, else its name or alias in the text). */
function mentionsPersona(m: StoredMessage, p: PersonaIdentity): boolean {
  for (const e of m.mentions ?? []) {
    if (e.type === "mentionname" && e.userId === p.selfId) return true;
    if (
      e.type === "mention" &&
      p.username !== undefined &&
      m.text.slice(e.offset + 1, e.offset + e.length).toLowerCase() === p.username.toLowerCase()
    )
      return true;
  }
  return p.mentionsName(m.text);
}

/**
 * Where the room's part starts: the id of its oldest message. `room` holds the room's newest
 * messages, oldest first (targets among them). At least `history` non-target messages; back to the
 * first message after `summarisedUpTo` (every message when there is no summary), up to `reach`
 * of them (default `2 × history`; planning lifts it when a due summary could not be written in
 * time, see context/plan-context.ts); and never after the first target in `room`, so the messages
 * being answered and everything after them are always the room's part, in order.
 */
export function recentStart(
  room: readonly StoredMessage[],
  targetIds: ReadonlySet<number>,
  history: number,
  summarisedUpTo: number | undefined,
  reach: number = 2 * history,
  readFrom?: number,
): number | undefined {
  const others = room.filter((m) => !targetIds.has(m.messageId));
  const unsummarised = others.filter(
    (m) => summarisedUpTo === undefined || m.messageId > summarisedUpTo,
  ).length;
  const count = Math.min(Math.max(history, unsummarised), Math.max(history, reach), others.length);
  const first = count > 0 ? others[others.length - count]!.messageId : undefined;
  // Everything from the first message being answered on is the room's part too: what she answers
  // and what came after it is new to her, never an old selection (two people asking at once, the
  // first messages of a private chat, a burst that began before the newest `history`).
  // (A target older than the room's read, `readFrom`, is shown under ⟦earlier⟧ instead: what lies
  // between it and the read is not at hand.)
  const firstTarget = room.find(
    (m) => targetIds.has(m.messageId) && (readFrom === undefined || m.messageId >= readFrom),
  )?.messageId;
  if (first === undefined) return firstTarget;
  return firstTarget === undefined ? first : Math.min(first, firstTarget);
}

export interface HistoryInput {
  /** The room's newest messages (up to the newest stored), oldest first; targets among them. */
  readonly room: readonly StoredMessage[];
  /** The last message id the room's summary covers. */
  readonly summarisedUpTo?: number;
  /** How many messages the room's part may reach back to the summary (default twice `sizes.history`). */
  readonly reach?: number;
  /** The oldest id of the room's read: targets older than it were read by id, apart (default: none). */
  readonly readFrom?: number;
  /** The lead target's reply thread (groups): its messages as read, oldest first, root included when stored. */
  readonly thread?: { readonly rootId: number; readonly messages: readonly StoredMessage[] };
  /** Messages around the replied-to ones (read by the caller), by replied-to id: [before…, it, after…]. */
  readonly around?: ReadonlyMap<number, readonly StoredMessage[]>;
  /** The addressed messages, oldest first. */
  readonly targets: readonly StoredMessage[];
  readonly isDm: boolean;
  readonly persona: PersonaIdentity;
  readonly sizes: WindowSizes;
}

export interface HistorySelection {
  /** Older messages the conversation refers to (thread, replied-to surroundings, the persona's), oldest first. */
  readonly earlier: readonly StoredMessage[];
  /** The room's newest messages, oldest first, targets included where they are. */
  readonly recent: readonly StoredMessage[];
  /**
   * Messages of the room's read that are neither shown nor covered by the summary: newer than
   * `summarisedUpTo` (all, without a summary), older than the room's part, not among `earlier`.
   * Above 0, the request would have a gap between summary and window.
   */
  readonly unreached: number;
}

/** The replied-to ids whose surroundings come along: the newest targets' first, at most {@link MAX_REPLIED_CONTEXTS}. */
export function repliedToOutside(targets: readonly StoredMessage[], start: number | undefined): number[] {
  const out: number[] = [];
  for (const t of [...targets].reverse()) {
    const r = t.replyToId;
    if (r === undefined || (start !== undefined && r >= start) || out.includes(r)) continue;
    out.push(r);
    if (out.length === MAX_REPLIED_CONTEXTS) break;
  }
  return out;
}

/** The history of one planning call (see the module comment). */
export function selectHistory(i: HistoryInput): HistorySelection {
  const targetIds = new Set(i.targets.map((t) => t.messageId));
  const start = recentStart(i.room, targetIds, i.sizes.history, i.summarisedUpTo, i.reach, i.readFrom);
  const isRecent = (id: number) => start !== undefined && id >= start;
  const recent = i.room.filter((m) => isRecent(m.messageId));
  const earlier = new Map<number, StoredMessage>();
  const take = (m: StoredMessage | undefined) => {
    if (m && !m.deleted && !isRecent(m.messageId)) earlier.set(m.messageId, m);
  };
  // Targets older than the room's part (a burst that began long ago) stay in view.
  for (const t of i.targets) take(t);

  // The lead target's thread: root, the chain it answers, then the thread's newest.
  if (i.thread) {
    const byId = new Map(i.thread.messages.map((m) => [m.messageId, m]));
    const lead = i.targets[i.targets.length - 1];
    const chain: StoredMessage[] = [];
    for (let id = lead?.replyToId; id !== undefined && chain.length < i.sizes.thread;) {
      const m = byId.get(id);
      if (!m) break;
      chain.push(m);
      id = m.replyToId;
    }
    const ordered = [byId.get(i.thread.rootId), ...chain, ...[...i.thread.messages].reverse()];
    let n = 0;
    for (const m of ordered) {
      if (n >= i.sizes.thread) break;
      if (!m || isRecent(m.messageId) || earlier.has(m.messageId) || targetIds.has(m.messageId)) continue;
      take(m);
      n++;
    }
  }

  // A replied-to message with what it answered and the room's flow after it.
  for (const around of i.around?.values() ?? []) for (const m of around) take(m);

  // Groups: older messages that involved the persona, the newest `focused`.
  if (!i.isDm) {
    const byId = new Map(i.room.map((m) => [m.messageId, m]));
    let n = 0;
    for (let k = i.room.length - 1; k >= 0 && n < i.sizes.focused; k--) {
      const m = i.room[k]!;
      if (isRecent(m.messageId) || targetIds.has(m.messageId)) continue;
      const parent = m.replyToId !== undefined ? byId.get(m.replyToId) : undefined;
      if (m.isAgent || parent?.isAgent === true || mentionsPersona(m, i.persona)) {
        if (!earlier.has(m.messageId)) n++;
        take(m);
      }
    }
  }
  const unreached = i.room.filter(
    (m) =>
      !isRecent(m.messageId) &&
      !targetIds.has(m.messageId) &&
      !earlier.has(m.messageId) &&
      (i.summarisedUpTo === undefined || m.messageId > i.summarisedUpTo),
  ).length;
  return {
    earlier: [...earlier.values()].sort((a, b) => a.messageId - b.messageId),
    recent,
    unreached,
  };
}
