/**
 * The recent window: which of a lane's messages go into the prompt as history.
 *
 * - `talkative` groups and private chats: every message of the lane, the newest
 *   {@link WINDOW_ITEMS}.talkative (16; the persona's `# History Window`).
 * - `strict` and `smart` groups: the messages that involved the persona — its own, those that
 *   mention it (an @username or text-mention entity naming its account, or its name/alias), those
 *   that reply to it — plus the messages those reply to, the replies to them, and the root message
 *   of a reply lane (what the thread is about); the newest {@link WINDOW_ITEMS}.focused (8; the
 *   persona's `# Focused Window`).
 * The addressed messages (targets) are not counted: they always come last, in full.
 *
 * Then what must be in view and is not: the message each target replies to, and the focus anchor
 * (the last target's reply target, else the persona's last message in the lane) are injected once
 * each, from the store, bounded in size by the renderer.
 */
import type { StoredMessage } from "../store/messages";

export type WindowMode = "strict" | "smart" | "talkative";

/** Default window sizes in items; a persona's `# History Window` / `# Focused Window` override them (config/persona.ts). */
export const WINDOW_ITEMS = { talkative: 16, focused: 8 } as const;
/** Injected messages (replied-to, anchor) are cut to this many code points of text. */
export const INJECTED_MAX_CODE_POINTS = 280;
/** At most this many messages are injected into one prompt (a burst replying to many old messages). */
export const MAX_INJECTED = 4;

/** Who the persona is, to tell which messages involved it. */
export interface PersonaIdentity {
  readonly selfId: string;
  /** Its @username without `@`, when known. */
  readonly username?: string;
  /** True when the text names the persona (name or alias as a whole word). */
  readonly mentionsName: (text: string) => boolean;
}

export interface WindowInput {
  /** The lane's recent messages, oldest first (targets may be among them). */
  readonly lane: readonly StoredMessage[];
  /** Ids of the addressed messages. */
  readonly targetIds: readonly number[];
  readonly mode: WindowMode;
  readonly isDm: boolean;
  readonly persona: PersonaIdentity;
  /** The sizes (default {@link WINDOW_ITEMS}): `talkative` for DMs and talkative groups, `focused` for strict and smart. */
  readonly sizes?: { readonly talkative: number; readonly focused: number };
  /** Override the mode's size. */
  readonly limit?: number;
  /** Kept whatever the mode (if in the lane): the root message of a reply lane, which says what the thread is about. */
  readonly alwaysKeep?: readonly number[];
}

export interface RecentWindow {
  /** History messages, oldest first: targets left out. */
  readonly messages: readonly StoredMessage[];
  /** The focus anchor: the last target's reply target, else the persona's last message in the lane. */
  readonly anchorId?: number;
}

/** True when a stored message mentions the persona (entities, else its name or alias in the text). */
export function mentionsPersona(m: StoredMessage, p: PersonaIdentity): boolean {
  for (const e of m.mentions ?? []) {
    if (e.type === "mentionname" && e.userId === p.selfId) return true;
    if (e.type === "mention" && p.username !== undefined && m.text.slice(e.offset + 1, e.offset + e.length).toLowerCase() === p.username.toLowerCase()) return true;
  }
  return p.mentionsName(m.text);
}

/** The window of a lane for the given targets. */
export function selectWindow(w: WindowInput): RecentWindow {
  const targets = new Set(w.targetIds);
  const lastTarget = Math.max(...w.targetIds);
  const talkative = w.isDm || w.mode === "talkative";
  const sizes = w.sizes ?? WINDOW_ITEMS;
  const limit = w.limit ?? (talkative ? sizes.talkative : sizes.focused);
  const byId = new Map(w.lane.map((m) => [m.messageId, m]));
  let kept: StoredMessage[];
  if (talkative) {
    kept = w.lane.filter((m) => !targets.has(m.messageId));
  } else {
    const involved = new Set<number>();
    for (const m of w.lane) {
      const parent = m.replyToId !== undefined ? byId.get(m.replyToId) : undefined;
      if (m.isAgent || targets.has(m.messageId) || parent?.isAgent === true || mentionsPersona(m, w.persona)) involved.add(m.messageId);
    }
    const keep = new Set<number>([...involved, ...(w.alwaysKeep ?? [])]);
    for (const m of w.lane) {
      if (m.replyToId === undefined) continue;
      // The message an involved one replies to (the question the persona answered), and replies to involved ones.
      if (involved.has(m.messageId)) keep.add(m.replyToId);
      if (involved.has(m.replyToId)) keep.add(m.messageId);
    }
    kept = w.lane.filter((m) => keep.has(m.messageId) && !targets.has(m.messageId));
  }
  const messages = kept.slice(Math.max(0, kept.length - limit));
  const lastReply = byId.get(lastTarget)?.replyToId;
  let anchorId = lastReply;
  if (anchorId === undefined) {
    for (let i = w.lane.length - 1; i >= 0; i--) {
      const m = w.lane[i]!;
      if (m.isAgent && m.messageId < lastTarget) {
        anchorId = m.messageId;
        break;
      }
    }
  }
  return { messages, ...(anchorId !== undefined ? { anchorId } : {}) };
}

/**
 * Ids to inject: the replied-to message of each target and the anchor, when not in view (not in
 * the window, not a target), each once, at most {@link MAX_INJECTED}, newest kept.
 */
export function idsToInject(window: RecentWindow, targets: readonly StoredMessage[]): number[] {
  const inView = new Set([...window.messages.map((m) => m.messageId), ...targets.map((t) => t.messageId)]);
  const want = new Set<number>();
  for (const t of targets) if (t.replyToId !== undefined && !inView.has(t.replyToId)) want.add(t.replyToId);
  if (window.anchorId !== undefined && !inView.has(window.anchorId)) want.add(window.anchorId);
  return [...want].sort((a, b) => a - b).slice(-MAX_INJECTED);
}
