/**
 * From addressed messages to the planner's prompt: their lanes (lanes.ts), each read once from
 * the store, the window (window.ts), the replied-to messages and the focus anchor injected when
 * out of view ({@link selectContext}); then, with memory's slots filled from that history, the
 * prompt (prompt.ts, {@link contextPrompt}). Only store reads, no request: one lane query per
 * distinct lane of the targets (usually one) and one primary-key read per injected message.
 */
import type { Persona } from "../config/persona";
import { compileAddressMatcher } from "../inbound/addressing";
import type { MessageStore, StoredMessage } from "../store/messages";
import type { ReceivedItem } from "../tasks/task";
import type { MemoryNote } from "./envelope";
import type { HistoryItem, MediaRenderer } from "./history-item";
import { laneKey, laneOf, readLane, type Lane } from "./lanes";
import { buildPlanPrompt, type PlanPrompt } from "./prompt";
import { speakerDirectory, type EntityLookup, type SpeakerDirectory } from "./speaker-directory";
import { idsToInject, selectWindow, type WindowMode } from "./window";

/** Lane messages read per planning call (then narrowed by the window). */
export const LANE_READ_LIMIT = 100;

export interface PromptSources {
  readonly persona: Persona;
  readonly messages: MessageStore;
  readonly entities: EntityLookup;
  /** The persona's account id. */
  readonly selfId: string;
  readonly timeZone?: string;
  readonly media?: MediaRenderer;
}

export interface ContextRequest {
  readonly chat: { readonly chatId: string; readonly chatType: string; readonly title?: string };
  /** The addressed messages (stored, not deleted). */
  readonly items: readonly ReceivedItem[];
  /** The chat's group mode (ignored in private chats). */
  readonly mode: WindowMode;
  /**
   * The last message id the lead lane's summary covers: those messages leave the window (the
   * summary stands for them); a replied-to one is still injected.
   */
  readonly summarisedUpTo?: number;
}

/** What {@link selectContext} found: the lanes, the history to show and the targets. */
export interface SelectedContext {
  readonly chat: ContextRequest["chat"];
  readonly items: readonly ReceivedItem[];
  /** The targets' lanes, the last target's first (its summary is the one shown). */
  readonly lanes: readonly Lane[];
  /** History to show, oldest first: the window plus the injected messages (targets not included). */
  readonly history: readonly StoredMessage[];
  /** Ids in `history` injected from outside the window (replied-to messages, the anchor). */
  readonly injectedIds: ReadonlySet<number>;
  /** The addressed messages as stored, oldest first. */
  readonly targets: readonly StoredMessage[];
  readonly speakers: SpeakerDirectory;
}

/** Slots others fill: memory's lines and the lane summary, reactions as extra items. */
export interface PromptSlots {
  /** The memories to show (memory's slot, memory/recall.ts); the prompt renders them. */
  readonly memories: readonly MemoryNote[];
  /** The lead lane's rolling summary, rendered (summary/summary-format.ts). */
  readonly summary?: string;
  /** Extra history items (reactions) of these lanes, placed by time. */
  readonly extraItems?: readonly HistoryItem[];
  readonly now: number;
  /** The sticker section of the system instruction (media/sticker-menu.ts). */
  readonly stickerMenu?: string;
  /** The chat's allowed reactions, as a line of the system instruction (context/reaction-rule.ts). */
  readonly reactionsNote?: string;
}

/** The lanes, window and injected messages for one planning call (store reads only). */
export function selectContext(s: PromptSources, r: ContextRequest): SelectedContext {
  const { chatId } = r.chat;
  const get = (id: number) => s.messages.get(chatId, id);
  const targets = r.items
    .map((i) => get(i.messageId))
    .filter((m): m is StoredMessage => m !== undefined)
    .sort((a, b) => a.messageId - b.messageId);
  const lastId = Math.max(...r.items.map((i) => i.messageId));
  // The last target's lane leads; a burst across lanes reads each.
  const lanes = new Map<string, Lane>();
  for (const t of [...targets].reverse()) {
    const lane = laneOf(t);
    lanes.set(laneKey(lane), lane);
  }
  if (lanes.size === 0) lanes.set(`root:${chatId}`, { kind: "root", chatId });
  const laneMessages = new Map<number, StoredMessage>();
  let lead = true;
  for (const lane of lanes.values()) {
    const after = lead && r.summarisedUpTo !== undefined ? { afterId: r.summarisedUpTo } : {};
    for (const m of readLane(s.messages, lane, { uptoId: lastId, limit: LANE_READ_LIMIT, ...after })) laneMessages.set(m.messageId, m);
    lead = false;
  }
  const lane = [...laneMessages.values()].sort((a, b) => a.messageId - b.messageId);
  const speakers = speakerDirectory(s.entities, { id: s.selfId, name: s.persona.name });
  const matcher = compileAddressMatcher([s.persona.name, ...s.persona.aliases]);
  const window = selectWindow({
    lane,
    targetIds: r.items.map((i) => i.messageId),
    mode: r.mode,
    isDm: r.chat.chatType === "dm",
    sizes: { talkative: s.persona.historyWindow, focused: s.persona.focusedWindow },
    alwaysKeep: [...lanes.values()].flatMap((l) => (l.kind === "reply" ? [l.rootId] : [])),
    persona: { selfId: s.selfId, ...(speakers.self.username !== undefined ? { username: speakers.self.username } : {}), mentionsName: (t) => matcher.mentionsName(t) },
  });
  const injected = idsToInject(window, targets)
    .map(get)
    .filter((m): m is StoredMessage => m !== undefined && !m.deleted);
  return {
    chat: r.chat,
    items: r.items,
    lanes: [...lanes.values()],
    history: [...window.messages, ...injected].sort((a, b) => a.messageId - b.messageId),
    injectedIds: new Set(injected.map((m) => m.messageId)),
    targets,
    speakers,
  };
}

/** The prompt of a selected context with the other slots filled. */
export function contextPrompt(s: PromptSources, c: SelectedContext, slots: PromptSlots): PlanPrompt {
  return buildPlanPrompt({
    persona: s.persona,
    chat: c.chat,
    history: c.history,
    injectedIds: c.injectedIds,
    targets: c.items,
    lookup: (id) => s.messages.get(c.chat.chatId, id),
    speakers: c.speakers,
    memories: slots.memories,
    now: slots.now,
    ...(slots.summary !== undefined ? { summary: slots.summary } : {}),
    ...(slots.extraItems !== undefined && slots.extraItems.length > 0 ? { extraItems: slots.extraItems } : {}),
    ...(s.media ? { media: s.media } : {}),
    ...(slots.stickerMenu !== undefined ? { stickerMenu: slots.stickerMenu } : {}),
    ...(slots.reactionsNote !== undefined ? { reactionsNote: slots.reactionsNote } : {}),
    ...(s.timeZone ? { timeZone: s.timeZone } : {}),
  });
}
