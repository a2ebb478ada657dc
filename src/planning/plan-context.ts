/**
 * Everything a planning call's prompt is made of, for the addressed messages of one received
 * task: the room's summary (and the reply thread's), the history (assemble.ts), media
 * descriptions and the pictures asked about (bounded wait), the memories of the people present
 * (memory/recall.ts), reactions as history items and the sticker menu — then the prompt
 * (prompt.ts). The room's and the thread's summaries are checked for being due right after
 * (their own task graphs; they overlap the planning call). The received handler only plans and
 * spawns.
 *
 * No gap between summary and window: the room's window reaches back to the last message its
 * summary covers, up to twice the window. In a group many messages can arrive while nobody asks
 * the persona (the inbound path only stores them), so when the window cannot reach the summary,
 * the summary is written first: planning asks for it and waits, bounded (`mediaWaitMs`, the
 * bound of everything planning waits for). When none comes in time (slow, failing, refused), the
 * window reaches back to the summary as far as the room's read goes (LANE_READ_LIMIT) instead.
 */
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { MediaDescriber } from "../media/describer";
import { inlineImages, type ImageSource } from "../media/inline-images";
import { MEDIA_WAIT_MS } from "./media-in-view";
import { withMediaDescriptions } from "./media-in-view";
import { stickerMenu } from "../media/sticker-menu";
import type { CuratedMemories } from "../memory/curated";
import { recall } from "../memory/recall";
import type { MemoryMeaning } from "../memory/meaning";
import { peopleSpokenOf, presentPeople, type KnownPerson } from "../memory/subject";
import type { EntityRecord } from "../store/entities";
import type { MemoryStore } from "../store/memories";
import type { ChatInfo, ChatStore } from "../store/chats";
import type { MessageStore, StoredMessage } from "../store/messages";
import type { ReactionStore } from "../store/reactions";
import type { ReceivedItem } from "../tasks/task";
import { contextPrompt, selectContext, type PromptSlots, type SelectedContext } from "./assemble";
import { roomOf, threadOf, type Lane } from "../context/lanes";
import type { PlanPrompt } from "./prompt";
import { reactionItems } from "../context/reaction-items";
import type { AllowedReactions } from "../base/standard-reactions";
import type { EntityLookup } from "../context/speaker-directory";

/** Rolling summaries as planning uses them (summary/lane-summaries.ts). */
export interface SummarySource {
  forPrompt(lane: Lane): { readonly text: string; readonly toId: number } | undefined;
  consider(lane: Lane, uptoId: number): void;
  /** Write the lane's summary now and wait for it, at most `waitMs`; "off" without a summariser. */
  summariseNow?(lane: Lane, waitMs: number): Promise<"written" | "late" | "off">;
}

export interface PlanContextSources {
  readonly persona: Persona;
  readonly messages: MessageStore;
  readonly chats: ChatStore;
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
  /**
   * How long planning waits at most for what its prompt shows: media descriptions, the pictures
   * asked about, a room summary the window cannot do without (default 8 s, real time).
   */
  readonly mediaWaitMs?: number;
  readonly logger?: Logger;
  /** What the chat allows to react with (telegram/chat-reactions.ts; bounded, cached per chat). */
  readonly allowedReactions?: (chatId: string) => Promise<AllowedReactions | undefined>;
  /** A forum topic's title (store/topics.ts), for the chat part. */
  readonly topicTitle?: (chatId: string, topicId: number) => string | undefined;
  /** The emoji of a sticker set, once an earlier send fetched it (no request; the sticker menu). */
  readonly stickerEmoji?: (set: string) => Promise<readonly string[] | undefined>;
  /** The basic group a supergroup was made from (store/chat-moves.ts): its chat notes are recalled too. */
  readonly earlierChat?: (chatId: string) => string | undefined;
  /** Memory by meaning (memory/meaning.ts): the plan's query is embedded once, within the wait. */
  readonly meaning?: Pick<MemoryMeaning, "queryVector">;
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
  /**
   * The reactions the chat allows when it allows only some (empty: none), for the plan's schema
   * (plan-schema.ts: an enum, or no `react`); absent: every standard one.
   */
  readonly reactions?: readonly string[];
}

/** At most this many people with memories here are looked for by name in the messages answered. */
const KNOWN_SUBJECTS = 200;

/** People by the names they go by (first name, @username), from the entity store. */
function knownPeople(s: PlanContextSources, ids: readonly string[]): KnownPerson[] {
  const out: KnownPerson[] = [];
  for (const id of new Set(ids)) {
    if (id === s.selfId) continue;
    const e = s.entities.get(id);
    const names = [e?.firstName, e?.username].filter((n): n is string => n !== undefined && n.trim() !== "");
    if (names.length > 0) out.push({ id, names });
  }
  return out;
}

/** Members of a group as Telegram last said (the entity store; no request). */
function memberCount(entities: EntityLookup, chatId: string): number | undefined {
  const e: EntityRecord | undefined = entities.get(chatId);
  return e?.members;
}

/**
 * Build the planner's prompt for the addressed `items` of `chat` (store reads, media's bounded
 * wait). With no item (the persona's own intention alone), the room of `topicId` is shown.
 */
export async function assemblePlanContext(
  s: PlanContextSources,
  chat: ChatInfo,
  items: readonly ReceivedItem[],
  now: number,
  /** Notes for the persona placed among the messages by date (what its last plan could not do). */
  notes?: readonly { readonly date: number; readonly text: string }[],
  o: {
    readonly topicId?: number;
    readonly intentions?: PromptSlots["intentions"];
    readonly extraParts?: readonly string[];
  } = {},
): Promise<PlanContext> {
  const { chatId } = chat;
  const lastId = items.length ? Math.max(...items.map((i) => i.messageId)) : undefined;
  const last = lastId !== undefined ? s.messages.get(chatId, lastId) : undefined;
  const waitMs = s.mediaWaitMs ?? MEDIA_WAIT_MS;
  // What the room's (and the thread's) summary covers: the window reaches back to it.
  const room = last
    ? roomOf(last)
    : roomOf({ chatId, ...(o.topicId !== undefined ? { topicId: o.topicId } : {}) });
  let roomSummary = s.summaries?.forPrompt(room);
  const thread = last ? threadOf(last) : undefined;
  const threadSummary = thread ? s.summaries?.forPrompt(thread) : undefined;
  const members = memberCount(s.entities, chatId);
  // General (topic 1) is the forum's main room: no topic to name.
  const topic =
    room.kind === "topic" && room.topicId !== 1 ? s.topicTitle?.(chatId, room.topicId) : undefined;
  const sources = { persona: s.persona, messages: s.messages, entities: s.entities, selfId: s.selfId };
  const select = (reach?: number): SelectedContext =>
    selectContext(sources, {
      chat: {
        chatId,
        chatType: chat.chatType,
        ...(chat.title ? { title: chat.title } : {}),
        ...(members !== undefined ? { members } : {}),
        ...(topic !== undefined ? { topic } : {}),
      },
      items,
      ...(o.topicId !== undefined ? { topicId: o.topicId } : {}),
      ...(roomSummary ? { roomSummarisedUpTo: roomSummary.toId } : {}),
      ...(threadSummary ? { threadSummarisedUpTo: threadSummary.toId } : {}),
      ...(reach !== undefined ? { reach } : {}),
    });
  let context = select();
  // More unsummarised messages than the window reaches: the summary first (bounded wait), else
  // the window reaches back to the summary as far as the room's read goes.
  if ((context.unreached ?? 0) > 0 && s.summaries?.summariseNow) {
    const got = await s.summaries.summariseNow(context.room, waitMs);
    if (got !== "off") {
      roomSummary = s.summaries.forPrompt(context.room);
      context = select();
      if ((context.unreached ?? 0) > 0) {
        context = select(Number.POSITIVE_INFINITY);
        s.logger?.info(
          { component: "context", chatId, summary: got, unreached: context.unreached },
          "the room's summary was not written in time; the window reaches back to it",
        );
      }
    }
  }
  const history = [...context.history, ...context.targets].sort((a, b) => a.messageId - b.messageId);
  const authors = presentPeople(
    history,
    items.map((i) => i.messageId),
    chat.chatType === "dm" ? { chatId } : undefined,
  );
  // People spoken of count as present too (their curated memories, what the owner widened):
  // the ones the messages answered mention, reply to or name first, then the rest of the window's.
  const earlierChatId = s.earlierChat?.(chatId);
  const viewer = {
    chatId,
    present: authors,
    ...(chat.chatType === "dm" ? { partner: chatId } : {}),
    ...(earlierChatId !== undefined ? { earlierChatId } : {}),
  };
  const spoken = {
    selfId: s.selfId,
    message: (id: number) => s.messages.get(chatId, id),
    byUsername: (u: string) => s.entities.findByUsername(u)?.peerId,
  };
  const spokenOf = peopleSpokenOf(context.targets, {
    ...spoken,
    known: knownPeople(s, [...authors, ...s.memories.subjectsVisible(viewer, KNOWN_SUBJECTS)]),
  });
  const present = [
    ...new Set([...authors, ...spokenOf, ...peopleSpokenOf(history, { ...spoken, known: [], max: 12 })]),
  ];
  const names = new Map(history.filter((m) => !m.isAgent).map((m) => [m.senderId, m.senderName]));
  // Media in view is described now (bounded wait), with the chat's allowed reactions; then the
  // pictures asked about, which the descriptions' downloads have usually cached already.
  const query = context.targets.map((m) => m.text).join("\n");
  const [prepared, allowed, setEmoji, meaning] = await Promise.all([
    s.media ? withMediaDescriptions(context, s.media, { waitMs }) : undefined,
    s.allowedReactions?.(chatId),
    Promise.all(
      s.persona.stickerSets.map(async (set) => [set, (await s.stickerEmoji?.(set)) ?? []] as const),
    ),
    s.meaning?.queryVector(query, chatId),
  ]);
  // What the chat allows goes into the plan's schema (an enum, or no react), not the request's text.
  const reactions =
    allowed === undefined || allowed.kind === "all"
      ? undefined
      : allowed.kind === "none"
        ? []
        : allowed.emoji;
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
        ...(earlierChatId !== undefined ? { earlierChatId } : {}),
        present,
        spokenOf,
        self: context.speakers.self,
        chatTitle: (id) => s.chats.get(id)?.title,
        speakerOf: (id) => context.speakers.sender(id, names.get(id)),
        query,
        ...(meaning ? { meaning } : {}),
      }),
      ...(roomSummary ? { summary: roomSummary.text } : {}),
      ...(threadSummary ? { threadSummary: threadSummary.text } : {}),
      extraItems: [
        ...(s.reactions
          ? reactionItems(s.reactions, {
              chatId,
              chatType: chat.chatType,
              messageIds: history.map((m) => m.messageId),
              speakers: context.speakers,
            })
          : []),
        ...(notes ?? []).map((n) => ({ kind: "system" as const, chatId, chatType: chat.chatType, ...n })),
      ],
      ...(s.media ? { stickerMenu: stickerMenu(s.persona, s.media.curated, new Map(setEmoji)) } : {}),
      images,
      ...(o.intentions !== undefined ? { intentions: o.intentions } : {}),
      ...(o.extraParts !== undefined ? { extraParts: o.extraParts } : {}),
      now,
    },
  );
  // Are the summaries due? Tasks on the lanes' own graphs, made while this one plans.
  const upto = lastId ?? history[history.length - 1]?.messageId;
  if (upto !== undefined) {
    s.summaries?.consider(context.room, upto);
    if (context.thread) s.summaries?.consider(context.thread, upto);
  }
  return { prompt, targets: context.targets, history, present, ...(reactions ? { reactions } : {}) };
}
