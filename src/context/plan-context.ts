/**
 * Everything a planning call's prompt is made of, for the addressed messages of one received
 * task: the lane's summary, the window and the injected messages (assemble.ts), media
 * descriptions (bounded wait), the memories of the people present (memory/recall.ts), reactions
 * as history items and the sticker menu — then the prompt (prompt.ts). The lane's summary is
 * checked for being due right after (its own task graph; it overlaps the planning call). The
 * received handler only plans and spawns.
 */
import type { Persona } from "../config/persona";
import type { MediaDescriber } from "../media/describer";
import { withMediaDescriptions } from "../media/render-history";
import { stickerMenu } from "../media/sticker-menu";
import type { CuratedMemories } from "../memory/curated";
import { recall } from "../memory/recall";
import { presentPeople } from "../memory/subject";
import type { MemoryStore } from "../store/memories";
import type { ChatInfo, MessageStore, StoredMessage } from "../store/messages";
import type { ReactionStore } from "../store/reactions";
import type { ReceivedItem } from "../tasks/task";
import { contextPrompt, selectContext } from "./assemble";
import { laneOf, type Lane } from "./lanes";
import type { PlanPrompt } from "./prompt";
import { reactionItems } from "./reaction-items";
import { reactionRule } from "./reaction-rule";
import type { AllowedReactions } from "../telegram/standard-reactions";
import type { EntityLookup } from "./speaker-directory";
import type { WindowMode } from "./window";

export interface PlanContextSources {
  readonly persona: Persona;
  readonly messages: MessageStore;
  readonly entities: EntityLookup;
  /** The persona's account id. */
  readonly selfId: string;
  readonly memories: MemoryStore;
  /** Curated memories by user id; default none. */
  readonly curated?: CuratedMemories;
  /** Rolling lane summaries: shown in the prompt, and checked for being due at each plan. */
  readonly summaries?: { forPrompt(lane: Lane): { readonly text: string; readonly toId: number } | undefined; consider(lane: Lane, uptoId: number): void };
  readonly reactions?: ReactionStore;
  /** The chat's group mode, for the window (default: the persona's). */
  readonly modeOf?: (chatId: string) => WindowMode;
  readonly timeZone?: string;
  readonly media?: MediaDescriber;
  /** How long planning waits for media descriptions at most (default 8 s). */
  readonly mediaWaitMs?: number;
  /** What the chat allows to react with (telegram/chat-reactions.ts; bounded, cached per chat). */
  readonly allowedReactions?: (chatId: string) => Promise<AllowedReactions | undefined>;
}

/** The prompt and what the handler needs afterwards (to resolve `remember` subjects, pick the topic). */
export interface PlanContext {
  readonly prompt: PlanPrompt;
  /** The addressed messages as stored, oldest first. */
  readonly targets: readonly StoredMessage[];
  /** History and targets, oldest first. */
  readonly history: readonly StoredMessage[];
  /** People present in the window (memory/subject.ts). */
  readonly present: readonly string[];
}

/** Build the planner's prompt for the addressed `items` of `chat` (store reads, media's bounded wait). */
export async function assemblePlanContext(s: PlanContextSources, chat: ChatInfo, items: readonly ReceivedItem[], now: number): Promise<PlanContext> {
  const { chatId } = chat;
  const lastId = Math.max(...items.map((i) => i.messageId));
  const lane = laneOf(s.messages.get(chatId, lastId) ?? { chatId });
  const summary = s.summaries?.forPrompt(lane);
  // The target's lane, its window and the replied-to messages (assemble.ts); what the lane's
  // summary covers is not repeated: its messages up to the summary's last id leave the window.
  const sources = { persona: s.persona, messages: s.messages, entities: s.entities, selfId: s.selfId, ...(s.timeZone ? { timeZone: s.timeZone } : {}) };
  const context = selectContext(sources, {
    chat: { chatId, chatType: chat.chatType, ...(chat.title ? { title: chat.title } : {}) },
    items,
    mode: s.modeOf?.(chatId) ?? s.persona.groupMode,
    ...(summary ? { summarisedUpTo: summary.toId } : {}),
  });
  const history = [...context.history, ...context.targets].sort((a, b) => a.messageId - b.messageId);
  const present = presentPeople(
    history,
    items.map((i) => i.messageId),
    chat.chatType === "dm" ? { chatId } : undefined,
  );
  const names = new Map(history.filter((m) => !m.isAgent).map((m) => [m.senderId, m.senderName]));
  // Media in view is described now (bounded wait); nothing else ever is.
  const [prepared, allowed] = await Promise.all([
    s.media ? withMediaDescriptions(context, s.media, s.mediaWaitMs !== undefined ? { waitMs: s.mediaWaitMs } : {}) : undefined,
    s.allowedReactions?.(chatId),
  ]);
  const reactionsNote = reactionRule(allowed);
  const prompt = contextPrompt(prepared ? { ...sources, media: prepared.media } : sources, prepared?.context ?? context, {
    memories: recall({
      store: s.memories,
      curated: s.curated ?? new Map(),
      chatId,
      present,
      speakerOf: (id) => context.speakers.sender(id, names.get(id)),
      query: context.targets.map((m) => m.text).join("\n"),
    }),
    ...(summary ? { summary: summary.text } : {}),
    ...(s.reactions
      ? { extraItems: reactionItems(s.reactions, { chatId, chatType: chat.chatType, messageIds: history.map((m) => m.messageId), speakers: context.speakers }) }
      : {}),
    ...(s.media ? { stickerMenu: stickerMenu(s.persona, s.media.curated) } : {}),
    ...(reactionsNote !== undefined ? { reactionsNote } : {}),
    now,
  });
  // Is the lane's summary due? A task on the lane's own graph, made while this one plans.
  s.summaries?.consider(lane, lastId);
  return { prompt, targets: context.targets, history, present };
}
