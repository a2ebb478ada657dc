/**
 * Everything a planning call's prompt is made of, for the addressed messages of one received
 * task: the room's summary (and the reply thread's), the history (assemble.ts), media
 * descriptions and the pictures asked about (bounded wait), the memories of the people present
 * (memory/recall.ts), reactions as history items and the sticker menu — then the prompt
 * (prompt.ts). The room's and the thread's summaries are checked for being due right after
 * (their own task graphs; they overlap the planning call). The received handler only plans and
 * spawns.
 */
import type { Persona } from "../config/persona";
import type { MediaDescriber } from "../media/describer";
import { inlineImages, type ImageSource } from "../media/inline-images";
import { MEDIA_WAIT_MS } from "../media/render-history";
import { withMediaDescriptions } from "../media/render-history";
import { stickerMenu } from "../media/sticker-menu";
import type { CuratedMemories } from "../memory/curated";
import { recall } from "../memory/recall";
import { presentPeople } from "../memory/subject";
import type { EntityRecord } from "../store/entities";
import type { MemoryStore } from "../store/memories";
import type { ChatInfo, MessageStore, StoredMessage } from "../store/messages";
import type { ReactionStore } from "../store/reactions";
import type { ReceivedItem } from "../tasks/task";
import { contextPrompt, selectContext } from "./assemble";
import { roomOf, threadOf, type Lane } from "./lanes";
import type { PlanPrompt } from "./prompt";
import { reactionItems } from "./reaction-items";
import { reactionRule } from "./reaction-rule";
import type { AllowedReactions } from "../telegram/standard-reactions";
import type { EntityLookup } from "./speaker-directory";

/** Rolling summaries as planning uses them (summary/lane-summaries.ts). */
export interface SummarySource {
  forPrompt(lane: Lane): { readonly text: string; readonly toId: number } | undefined;
  consider(lane: Lane, uptoId: number): void;
}

export interface PlanContextSources {
  readonly persona: Persona;
  readonly messages: MessageStore;
  readonly entities: EntityLookup;
  /** The persona's account id. */
  readonly selfId: string;
  readonly memories: MemoryStore;
  /** Curated memories by user id; default none. */
  readonly curated?: CuratedMemories;
  /** Rolling summaries: shown in the prompt, and checked for being due at each plan. */
  readonly summaries?: SummarySource;
  readonly reactions?: ReactionStore;
  readonly media?: MediaDescriber;
  /** Pictures of the addressed messages, sent inline (absent: descriptions only). */
  readonly images?: ImageSource;
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
  /** People present in the history (memory/subject.ts). */
  readonly present: readonly string[];
}

/** Members of a group as Telegram last said (the entity store; no request). */
function memberCount(entities: EntityLookup, chatId: string): number | undefined {
  const e: EntityRecord | undefined = entities.get(chatId);
  return e?.members;
}

/** Build the planner's prompt for the addressed `items` of `chat` (store reads, media's bounded wait). */
export async function assemblePlanContext(
  s: PlanContextSources,
  chat: ChatInfo,
  items: readonly ReceivedItem[],
  now: number,
): Promise<PlanContext> {
  const { chatId } = chat;
  const lastId = Math.max(...items.map((i) => i.messageId));
  const last = s.messages.get(chatId, lastId);
  // What the room's (and the thread's) summary covers: the window reaches back to it, no further.
  const roomSummary = s.summaries?.forPrompt(last ? roomOf(last) : { kind: "root", chatId });
  const thread = last ? threadOf(last) : undefined;
  const threadSummary = thread ? s.summaries?.forPrompt(thread) : undefined;
  const members = memberCount(s.entities, chatId);
  const sources = { persona: s.persona, messages: s.messages, entities: s.entities, selfId: s.selfId };
  const context = selectContext(sources, {
    chat: {
      chatId,
      chatType: chat.chatType,
      ...(chat.title ? { title: chat.title } : {}),
      ...(members !== undefined ? { members } : {}),
    },
    items,
    ...(roomSummary ? { roomSummarisedUpTo: roomSummary.toId } : {}),
    ...(threadSummary ? { threadSummarisedUpTo: threadSummary.toId } : {}),
  });
  const history = [...context.history, ...context.targets].sort((a, b) => a.messageId - b.messageId);
  const present = presentPeople(
    history,
    items.map((i) => i.messageId),
    chat.chatType === "dm" ? { chatId } : undefined,
  );
  const names = new Map(history.filter((m) => !m.isAgent).map((m) => [m.senderId, m.senderName]));
  // Media in view is described now (bounded wait), with the chat's allowed reactions; then the
  // pictures asked about, which the descriptions' downloads have usually cached already.
  const waitMs = s.mediaWaitMs ?? MEDIA_WAIT_MS;
  const [prepared, allowed] = await Promise.all([
    s.media ? withMediaDescriptions(context, s.media, { waitMs }) : undefined,
    s.allowedReactions?.(chatId),
  ]);
  const reactionsNote = reactionRule(allowed);
  const images = s.images
    ? await inlineImages(
        context.targets,
        (m) => (m.replyToId !== undefined ? s.messages.get(chatId, m.replyToId) : undefined),
        s.images,
        { waitMs },
      )
    : [];
  const prompt = contextPrompt(
    prepared ? { ...sources, media: prepared.media } : sources,
    prepared?.context ?? context,
    {
      memories: recall({
        store: s.memories,
        curated: s.curated ?? new Map(),
        chatId,
        ...(chat.chatType === "dm" ? { partner: chatId } : {}),
        present,
        chatTitle: (id) => s.messages.chat(id)?.title,
        speakerOf: (id) => context.speakers.sender(id, names.get(id)),
        query: context.targets.map((m) => m.text).join("\n"),
      }),
      ...(roomSummary ? { summary: roomSummary.text } : {}),
      ...(threadSummary ? { threadSummary: threadSummary.text } : {}),
      ...(s.reactions
        ? {
            extraItems: reactionItems(s.reactions, {
              chatId,
              chatType: chat.chatType,
              messageIds: history.map((m) => m.messageId),
              speakers: context.speakers,
            }),
          }
        : {}),
      ...(s.media ? { stickerMenu: stickerMenu(s.persona, s.media.curated) } : {}),
      images,
      ...(reactionsNote !== undefined ? { reactionsNote } : {}),
      now,
    },
  );
  // Are the summaries due? Tasks on the lanes' own graphs, made while this one plans.
  s.summaries?.consider(context.room, lastId);
  if (context.thread) s.summaries?.consider(context.thread, lastId);
  return { prompt, targets: context.targets, history, present };
}
