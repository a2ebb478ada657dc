/**
 * From addressed messages to the planner's prompt: the room and the reply thread they are in
 * (lanes.ts), each read once from the store, the history a member would have read (window.ts:
 * the room's newest messages, and what the conversation refers to from earlier); then, with the
 * other slots filled, the prompt (prompt.ts, {@link contextPrompt}). Only store reads, no request:
 * one room read, one thread read when the last target is in a reply thread, and two short reads
 * per replied-to message older than the room's part (at most two).
 */
import type { Persona } from "../config/persona";
import { compileAddressMatcher } from "../inbound/addressing";
import type { MessageStore, StoredMessage } from "../store/messages";
import type { ReceivedItem } from "../tasks/task";
import type { MemoryNote } from "../context/envelope";
import type { HistoryItem, InlineImage, MediaRenderer } from "../context/history-item";
import { laneFilter, readLane, roomOf, threadOf, type Lane } from "../context/lanes";
import { buildPlanPrompt, type ChatHeader, type PlanPrompt, type PromptInput } from "./prompt";
import { speakerDirectory, type EntityLookup, type SpeakerDirectory } from "../context/speaker-directory";
import { AROUND_REPLIED, recentStart, repliedToOutside, selectHistory } from "../context/window";

/** Room (and thread) messages read per planning call, the newest; then narrowed by the window. */
const LANE_READ_LIMIT = 100;
/** How far a read around a replied-to message scans the chat. */
const AROUND_SCAN = 60;

export interface PromptSources {
  readonly persona: Persona;
  readonly messages: MessageStore;
  readonly entities: EntityLookup;
  /** The persona's account id. */
  readonly selfId: string;
  readonly media?: MediaRenderer;
}

export interface ContextRequest {
  readonly chat: ChatHeader;
  /** The addressed messages (stored, not deleted); none when the persona's own intention alone is planned. */
  readonly items: readonly ReceivedItem[];
  /** With no addressed message: the forum topic whose room is shown (default the chat's own). */
  readonly topicId?: number;
  /** The last message id the room's summary covers (the window reaches back to it). */
  readonly roomSummarisedUpTo?: number;
  /** The last message id the lead target's thread summary covers. */
  readonly threadSummarisedUpTo?: number;
  /** How many messages the room's part may reach back to its summary (default twice the history window). */
  readonly reach?: number;
}

/** What {@link selectContext} found: the room and thread, the history to show and the targets. */
export interface SelectedContext {
  readonly chat: ChatHeader;
  readonly items: readonly ReceivedItem[];
  /** The last target's room. */
  readonly room: Lane;
  /** The last target's reply thread, when it is in one. */
  readonly thread?: Lane;
  /** History to show, oldest first, targets not included: the earlier messages, then the room's newest. */
  readonly history: readonly StoredMessage[];
  /** Ids in `history` from before the room's part (shown under their own label, text bounded). */
  readonly earlierIds: ReadonlySet<number>;
  /** The addressed messages as stored, oldest first. */
  readonly targets: readonly StoredMessage[];
  readonly speakers: SpeakerDirectory;
  /**
   * Messages of the room neither shown nor covered by its summary (window.ts); counted within the
   * room's read, plus one when that read is full and still does not reach the summary. Always
   * set by {@link selectContext}.
   */
  readonly unreached?: number;
}

/** Slots others fill: memory's lines and the summaries, reactions as extra items, images. */
export interface PromptSlots {
  /** The memories to show (memory's slot, memory/recall.ts); the prompt renders them. */
  readonly memories: readonly MemoryNote[];
  /** The room's rolling summary, rendered (summary/summary-format.ts). */
  readonly summary?: string;
  /** The lead target's reply thread's summary, rendered. */
  readonly threadSummary?: string;
  /** Extra history items (reactions) of these messages, placed by time. */
  readonly extraItems?: readonly HistoryItem[];
  readonly now: number;
  /** The persona's sticker section (media/sticker-menu.ts). */
  readonly stickerMenu?: string;
  /** Pictures the addressed messages show or reply to, sent inline (media/inline-images.ts). */
  readonly images?: readonly InlineImage[];
  /** The persona's own intentions in the chat: pending, and due now (prompt.ts). */
  readonly intentions?: PromptInput["intentions"];
  /** Parts placed before ⟦now⟧ (look-ups found, abilities). */
  readonly extraParts?: readonly string[];
}

/** The room, thread and history for one planning call (store reads only). */
export function selectContext(s: PromptSources, r: ContextRequest): SelectedContext {
  const { chatId } = r.chat;
  const get = (id: number) => s.messages.get(chatId, id);
  const targets = r.items
    .map((i) => get(i.messageId))
    .filter((m): m is StoredMessage => m !== undefined)
    .sort((a, b) => a.messageId - b.messageId);
  const lead = targets[targets.length - 1];
  const room = lead
    ? roomOf(lead)
    : roomOf({ chatId, ...(r.topicId !== undefined ? { topicId: r.topicId } : {}) });
  const thread = lead ? threadOf(lead) : undefined;
  const roomMessages = readLane(s.messages, room, { limit: LANE_READ_LIMIT });
  // Targets are read by id: a burst's oldest may be older than the room's read.
  const inRoom = new Set(roomMessages.map((m) => m.messageId));
  const roomAll = [...roomMessages, ...targets.filter((t) => !inRoom.has(t.messageId))].sort(
    (a, b) => a.messageId - b.messageId,
  );

  const targetIds = new Set(targets.map((t) => t.messageId));
  const sizes = {
    history: s.persona.historyWindow,
    thread: s.persona.threadWindow,
    focused: s.persona.focusedWindow,
  };
  const readFrom = roomMessages[0]?.messageId;
  const start = recentStart(roomAll, targetIds, sizes.history, r.roomSummarisedUpTo, r.reach, readFrom);
  let threadInput: { rootId: number; messages: StoredMessage[] } | undefined;
  if (thread?.kind === "reply" && start !== undefined && thread.rootId < start) {
    const messages = readLane(s.messages, thread, {
      limit: LANE_READ_LIMIT,
      ...(r.threadSummarisedUpTo !== undefined ? { afterId: r.threadSummarisedUpTo } : {}),
    });
    const root = messages[0]?.messageId === thread.rootId ? undefined : get(thread.rootId);
    threadInput = { rootId: thread.rootId, messages: root ? [root, ...messages] : messages };
  }
  const around = new Map<number, StoredMessage[]>();
  for (const id of repliedToOutside(targets, start)) {
    const it = get(id);
    if (!it || it.deleted) continue;
    const before = readLane(s.messages, room, {
      uptoId: id - 1,
      limit: AROUND_REPLIED.before,
      scan: AROUND_SCAN,
    });
    const after = s.messages.laneAfter(chatId, laneFilter(room), id, {
      limit: AROUND_REPLIED.after,
      scan: AROUND_SCAN,
    });
    around.set(id, [...before, it, ...after]);
  }

  const speakers = speakerDirectory(s.entities, { id: s.selfId, name: s.persona.name });
  const matcher = compileAddressMatcher([s.persona.name, ...s.persona.aliases]);
  const chosen = selectHistory({
    room: roomAll,
    ...(r.roomSummarisedUpTo !== undefined ? { summarisedUpTo: r.roomSummarisedUpTo } : {}),
    ...(r.reach !== undefined ? { reach: r.reach } : {}),
    ...(readFrom !== undefined ? { readFrom } : {}),
    ...(threadInput ? { thread: threadInput } : {}),
    around,
    targets,
    isDm: r.chat.chatType === "dm",
    persona: {
      selfId: s.selfId,
      ...(speakers.self.username !== undefined ? { username: speakers.self.username } : {}),
      mentionsName: (t) => matcher.mentionsName(t),
    },
    sizes,
  });
  return {
    chat: r.chat,
    items: r.items,
    room,
    ...(thread ? { thread } : {}),
    history: [...chosen.earlier, ...chosen.recent].filter((m) => !targetIds.has(m.messageId)),
    earlierIds: new Set(chosen.earlier.map((m) => m.messageId)),
    targets,
    speakers,
    unreached: chosen.unreached + (readShort(roomMessages, r.roomSummarisedUpTo) ? 1 : 0),
  };
}

/** True when a full room read may have left unsummarised messages older than it unread. */
function readShort(read: readonly StoredMessage[], summarisedUpTo: number | undefined): boolean {
  if (read.length < LANE_READ_LIMIT) return false;
  return summarisedUpTo === undefined || read[0]!.messageId > summarisedUpTo + 1;
}

/** The prompt of a selected context with the other slots filled. */
export function contextPrompt(s: PromptSources, c: SelectedContext, slots: PromptSlots): PlanPrompt {
  return buildPlanPrompt({
    persona: s.persona,
    chat: c.chat,
    history: c.history,
    earlierIds: c.earlierIds,
    targets: c.items,
    lookup: (id) => s.messages.get(c.chat.chatId, id),
    speakers: c.speakers,
    memories: slots.memories,
    now: slots.now,
    ...(slots.summary !== undefined ? { summary: slots.summary } : {}),
    ...(slots.threadSummary !== undefined ? { threadSummary: slots.threadSummary } : {}),
    ...(slots.extraItems !== undefined && slots.extraItems.length > 0
      ? { extraItems: slots.extraItems }
      : {}),
    ...(s.media ? { media: s.media } : {}),
    ...(slots.stickerMenu !== undefined ? { stickerMenu: slots.stickerMenu } : {}),
    ...(slots.images !== undefined && slots.images.length > 0 ? { images: slots.images } : {}),
    ...(slots.intentions !== undefined ? { intentions: slots.intentions } : {}),
    ...(slots.extraParts !== undefined ? { extraParts: slots.extraParts } : {}),
  });
}
