import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { EntityLookup } from "../context/speaker-directory";
import type { Planner } from "./planner";
import type { MemoryStore } from "../store/memories";
import type { CuratedMemories } from "../memory/curated";
import { assemblePlanContext, type SummarySource } from "./plan-context";
import type { ImageSource } from "../media/inline-images";
import type { MessageStore } from "../store/messages";
import type { ChatStore } from "../store/chats";
import { errorMessage } from "../base/error-message";
import type { ReactionStore } from "../store/reactions";
import type { AllowedReactions } from "../base/standard-reactions";
import type { Clock } from "../base/types";
import { PermanentError } from "../tasks/errors";
import { LLM_RATE_KEY, parkOnOutage } from "../tasks/llm-wait";
import { expandPlan } from "./expand-plan";
import { stretchAt } from "../config/persona-rhythm";
import { planTrace, withoutSystem } from "./plan-trace";
import type { PlanTraceStore } from "../store/plan-traces";
import type { MediaDescriber } from "../media/describer";
import type { TaskHandler } from "../tasks/task-handler";
import type { ReceivedItem } from "../tasks/task";
import { mayIntend } from "./prompt";
import type { PlanKind } from "./plan-schema";
import { inSlowMode } from "./slow-mode";
import type { ChatWrites } from "../base/chat-writes";
import { abilitiesPart } from "./abilities";
import { earlierChatPart } from "./earlier-chat";
import { lookupSection } from "./lookup-section";
import { planVoice, speaksWhenSpokenTo, type VoicePort } from "./voice-offer";
import { deletedWhilePlanning, openGates, type MayWriteNow } from "./plan-gates";
import { RefusalNotes } from "./refusal-notes";
import { planIntentions, type IntentionsPort } from "./plan-intentions";
import { rememberFrom } from "./plan-remember";
import { lookUpOffer, lookUpTask, splitAtLookUp, type LookUpGate } from "./lookup-round";

export interface ReceivedHandlerDeps {
  readonly persona: Persona;
  /** A plan was made for this many addressed messages (metrics). */
  readonly onPlanned?: (messages: number) => void;
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  readonly memories: MemoryStore;
  /** Curated memories by user id (agents/<Name>/memory/<user id>.md); default none. */
  readonly curated?: CuratedMemories;
  /** Rolling summaries of rooms and reply threads: shown in the prompt, and checked for being due at each plan. */
  readonly summaries?: SummarySource;
  /** Pictures of the addressed messages, sent inline with the planning request. */
  readonly images?: ImageSource;
  /** A user's @username as last seen, to resolve `remember {about: "@name"}`. */
  readonly usernameOf?: (userId: string) => string | undefined;
  readonly planner: Planner;
  /** Rate keys of a planning call beside LLM_RATE_KEY: the planning model's (llmRateKey), so an outage of it parks planning. */
  readonly llmKeys?: readonly string[];
  /** Names and usernames of senders and mentioned people (the entity store). */
  readonly entities: EntityLookup;
  /** Reactions to the persona's messages and its own, shown as history items (context/reaction-items.ts). */
  readonly reactions?: ReactionStore;
  /** One line on how her last unasked remark in a group was received (inbound/reception.ts); "" for none. */
  readonly reception?: (chatId: string) => string;
  /** The persona's account id. */
  readonly selfId: string;
  readonly clock: Clock;
  /** Telegram's time, which message dates are (the answer-age limit); default the clock's. */
  readonly telegramNow?: () => number;
  readonly logger: Logger;
  /** Open tasks of the plan's graph (chat, or forum topic) it should wait for (the pending read mark). */
  readonly waitFor: (chatId: string, topicId: number | undefined) => readonly number[];
  /** Messages older than this (by their date) when the task plans are not answered (default: the inbound limit, 1 h). */
  readonly maxAnswerAgeMs?: number;
  /** Describes the media of the messages that enter the prompt (absent: plain placeholders). */
  readonly media?: MediaDescriber;
  /** How long planning waits for media descriptions at most (default 8 s). */
  readonly mediaWaitMs?: number;
  /** What the chat allows to react with (named in the request's chat part). */
  readonly allowedReactions?: (chatId: string) => Promise<AllowedReactions | undefined>;
  /** A forum topic's title (store/topics.ts), named in the request's chat part. */
  readonly topicTitle?: (chatId: string, topicId: number) => string | undefined;
  /** The forum topic (none: a forum's General) was closed by an admin (forumTopic.closed, from its service messages). */
  readonly topicClosed?: (chatId: string, topicId: number | undefined) => boolean;
  /** The emoji of a sticker set once known (the sticker menu of the system instruction). */
  readonly stickerEmoji?: (set: string) => Promise<readonly string[] | undefined>;
  /** Where each plan's trace is kept for the console (absent: not kept). */
  readonly traces?: Pick<PlanTraceStore, "put">;
  /**
   * The persona's own intentions (life/intentions.ts): a chat's pending ones are shown in its
   * requests, a plan's `schedule` sets one (refused over a limit, with the reason told to the next
   * plan), `cancel_schedule` drops one. Absent: no intentions.
   */
  readonly intentions?: IntentionsPort;
  /**
   * Look-ups (docs/world.md): `on`, the persona looks things up at all; `allowed`, this person may
   * make it look something up in this chat now (rules and caps; no hold recorded). Absent: never.
   */
  readonly lookUps?: LookUpGate;
  /**
   * What she may send in a group (base/chat-writes.ts, from the chat's objects): where she may
   * not write at all nothing is planned; a kind she may not use is not offered; slow mode makes
   * an answer one message. Absent: everything, no slow mode.
   */
  readonly writes?: (chatId: string) => ChatWrites | undefined;
  /**
   * Until when her writes to this chat are paused account-wide (ms; 0: not) — USER_BANNED_IN_CHANNEL
   * pauses every supergroup until a probe goes through: nothing is planned there meanwhile, and
   * the first message after the pause plans and probes.
   */
  readonly writesPausedUntil?: (chatId: string) => number;
  /** The basic group a supergroup was made from (store/chat-moves.ts): its history is shown too. */
  readonly earlierChat?: (chatId: string) => string | undefined;
  /** Her voice (`# Voice`, planning/voice-offer.ts); absent: no speech model, she writes. */
  readonly voice?: VoicePort;
}

/**
 * Plans an answer to the chat's addressed messages: context → planner → validated plan →
 * graph tasks, created atomically with this task's completion — a `remember` too (stored when its task is admitted).
 * A planning failure while the model is failing (5xx, 429, timeouts…) parks the task, not fails it:
 * it waits out the outage (tasks/llm-wait.ts) within the answer-age limit. A permanent error (a bad
 * key, an unknown model, a request Gemini rejects) fails this message.
 */
export function receivedHandler(d: ReceivedHandlerDeps): TaskHandler<"received"> {
  // What the last plan of each chat could not do, told to the next one (once, in memory).
  const refused = new RefusalNotes();
  return {
    rateKeys: () => [LLM_RATE_KEY, ...(d.llmKeys ?? [])],
    async run(task) {
      const chatId = task.chatId;
      // The persona's own intentions due now (life/intentions.ts): planned with the messages, or alone.
      const intentions = task.payload.intentions ?? [];
      // An unknown chat is treated as a group: block/unblock stay refused unless it is known to be a DM.
      const chat = d.chats.get(chatId) ?? { chatId, chatType: "group" };
      const isDm = chat.chatType === "dm";
      // The newest addressed message (none: an intention alone).
      const newest = (items: readonly ReceivedItem[]) =>
        items.length ? Math.max(...items.map((i) => i.messageId)) : undefined;
      // May this answer be spoken (her # Voice, the chat's rights, how she was spoken to)? Where
      // her text is forbidden but voice messages are not, voice is all she is offered.
      const voiceFor = (items: readonly ReceivedItem[], may: MayWriteNow) => {
        const lastId = newest(items);
        return planVoice(d, {
          chatId,
          isDm,
          mayVoice: may.voice,
          mayText: may.text,
          ...(lastId !== undefined ? { lastId } : {}),
        });
      };
      // Deleted or too old, or she may neither write nor speak there now: nothing planned (plan-gates.ts).
      const open = openGates(d, task, (items, may) => voiceFor(items, may) !== undefined);
      if (!open) return { type: "done" };
      const { items, may } = open;
      const lastId = newest(items);
      const voice = voiceFor(items, may);
      const forbidden: PlanKind[] = [
        ...(may.text || voice ? [] : ["send" as const]),
        ...(may.sticker ? [] : ["sticker" as const]),
      ];
      const senderOf = (id: number) => d.messages.get(chatId, id)?.senderId;
      // The chat's pending intentions (the due ones it plans for are shown as due, not pending).
      const canIntend = d.intentions !== undefined && mayIntend(d.persona);
      // Schedules of the chat's last plans that their tasks could not store: told to this plan.
      refused.addNewest(chatId, d.intentions?.takeNotes?.(chatId) ?? []);
      const pending = canIntend ? d.intentions!.openIn(chatId).filter((x) => x.state === "pending") : [];
      // The call is for the sender of the last message answered (costs per person).
      // An intention's call is for whom it was set (the task's authors).
      const userId = lastId !== undefined ? senderOf(lastId) : task.payload.authors?.[0];
      // What a look-up found for this round, and whether this round may ask for one (one per answer).
      const lookups = task.payload.lookups ?? [];
      const lookUp = lookUpOffer({
        lookUps: d.lookUps,
        chatId,
        items,
        lastId,
        mayText: may.text,
        lookups,
        senderOf,
      });
      const extraParts = [
        earlierChatPart(d.messages, d.entities, d.earlierChat?.(chatId), d.summaries),
        lookupSection(lookups),
        isDm ? "" : (d.reception?.(chatId) ?? ""),
        abilitiesPart({
          isDm,
          stickers: may.sticker && (d.persona.stickerSets.length > 0 || d.persona.stickers.length > 0),
          lookUp,
          schedule: canIntend,
          ...(may.text ? {} : { text: false }),
          ...(voice
            ? { voice }
            : speaksWhenSpokenTo(d, { chatId, mayVoice: may.voice })
              ? { voiceWhenSpokenTo: true }
              : {}),
        }),
      ];
      // The prompt and its slots (window, summary, memories, reactions, media): context/plan-context.ts.
      const {
        prompt,
        targets: targetMessages,
        history,
        present,
        reactions,
      } = await assemblePlanContext(d, chat, items, d.clock.now(), refused.of(chatId), {
        ...(task.topicId !== undefined ? { topicId: task.topicId } : {}),
        ...(canIntend || intentions.length > 0 ? { intentions: { pending, due: intentions } } : {}),
        extraParts,
      });
      let plan;
      // A reply_to or a reaction must name a message the request showed (not a number copied
      // from elsewhere in it).
      const shown = new Set(history.map((m) => m.messageId));
      const check = {
        inView: (id: number) => shown.has(id),
        answered: (id: number) => items.some((i) => i.messageId === id),
        isDm,
        stickerSets: d.persona.stickerSets,
        stickers: d.persona.stickers,
        ...(lastId !== undefined ? { answering: lastId } : {}),
        intentions: canIntend,
        cancellable: pending.length > 0,
        timeZone: d.persona.timeZone,
        now: d.clock.now(),
        intentionIds: new Set(pending.map((x) => x.id)),
        lookUp: lookUp === "offer",
        selfName: d.persona.name,
        ...(reactions ? { reactions } : {}),
        ...(forbidden.length > 0 ? { forbidden } : {}),
        ...(voice ? { voice: true } : {}),
      };
      try {
        plan = await d.planner.plan(prompt, check, {
          chatId,
          ...(userId !== undefined ? { userId } : {}),
          ...(intentions.length > 0 ? { due: intentions.map((x) => ({ id: x.id, note: x.note })) } : {}),
        });
      } catch (e) {
        // The model is failing (or asked us to come back later): wait it out, however long —
        // the age check above ends the wait when the message is too old to answer.
        const park = parkOnOutage(e);
        if (park) throw park;
        // Anything else is the request's fault, not the server's: give up on this message.
        const what = [
          ...items.map((i) => `#${i.messageId}`),
          ...intentions.map((i) => `intention #${i.id}`),
        ].join(", ");
        throw new PermanentError(
          `planning failed for ${items.length ? "messages " : ""}${what}: ${errorMessage(e)}`,
        );
      }
      // Kept for the console apart from the task's payload (store/plan-traces.ts); bounded, and
      // written in the transaction that marks the task done.
      const trace = planTrace(prompt, check, plan);
      const traces = d.traces;
      // A plan came back (even "no usable plan"): the round takes its chat's next plan number.
      const done = {
        type: "done" as const,
        planned: true,
        ...(traces ? { keep: () => traces.put(task.id, trace.request.system, withoutSystem(trace)) } : {}),
      };
      // No usable plan twice (blocked, empty, not a plan): silence, already logged in one line.
      if (plan.silent !== undefined) return done;
      // Every message it answers was deleted while it was planned: nothing of it is done.
      if (deletedWhilePlanning(d, chatId, items, intentions.length)) return done;
      refused.replaceWithRejected(chatId, plan.rejected, d.clock);
      // A dry run's empty plan answers nothing: it is no planned answer (metrics, the console).
      if (plan.origin !== "dry-run" && items.length > 0) d.onPlanned?.(items.length);
      // Whether this plan speaks (an intention's plan that sends counts for backing off).
      if (intentions.length > 0)
        task.payload = {
          ...task.payload,
          spoke: plan.tasks.some((t) => t.kind === "send" || t.kind === "sticker"),
        };
      // What the plan asked for beyond what one answer may do (logged once below).
      const cut: string[] = [];
      // A look-up: only the part of the plan before it is carried out — schedules included.
      const { asked, before: beforeLookUp, dropped } = splitAtLookUp(plan.tasks);
      if (dropped !== undefined) cut.push(dropped);
      // What the persona means to do later: set (or refused, told to the next plan) and dropped.
      const { schedules, notes } = d.intentions
        ? planIntentions(beforeLookUp, {
            intentions: d.intentions,
            clock: d.clock,
            timeZone: d.persona.timeZone,
            items,
            lastId,
            answeredAuthors: new Set(
              items.flatMap((i) => {
                const m = d.messages.get(chatId, i.messageId);
                return m && m.senderId !== d.selfId ? [m.senderId] : [];
              }),
            ),
            authors: task.payload.authors,
            pending,
            senderOf,
          })
        : { schedules: [], notes: [] };
      refused.addFirst(chatId, notes);
      // A remember becomes a task of the graph (plan-remember.ts decides who it is about and who said it).
      const remember = rememberFrom({
        chatId,
        isDm,
        selfId: d.selfId,
        messages: d.messages,
        entities: d.entities,
        usernameOf: d.usernameOf,
        targets: targetMessages,
        present,
        lastId,
        tasks: plan.tasks,
        onCut: (what) => cut.push(what),
      });
      // A forum topic's graph answers in that topic (see graphKey); else where the last message was.
      const topicId =
        task.topicId ??
        (lastId !== undefined ? history.find((m) => m.messageId === lastId)?.topicId : undefined);
      // Slow mode: one message per answer (slow-mode.ts), not a second part a window later.
      const slow = may.slowmode && !isDm;
      const planned = slow ? inSlowMode(beforeLookUp, asked !== undefined) : beforeLookUp;
      if (planned.length !== beforeLookUp.length)
        d.logger.info({ component: "planner", chatId }, "slow mode: the answer is sent as one message");
      const spawn = expandPlan(planned, {
        pacing: d.persona,
        answers: items.map((i) => i.messageId),
        waitFor: d.waitFor(chatId, task.topicId),
        ...(isDm || lastId === undefined ? {} : { replyTarget: lastId }),
        ...(topicId !== undefined ? { topicId } : {}),
        onCut: (what) => cut.push(what),
        remember,
        ...(voice ? { voice } : {}),
        // Busy (`# Busy`): the typing starts later, stretched like the read delay.
        delayStartSec:
          d.persona.startTypingDelaySec *
          (stretchAt(d.persona.rhythm, d.persona.timeZone, d.clock.now()) - 1),
      });
      if (asked) spawn.push(lookUpTask(asked, { items, authors: task.payload.authors, userId }, spawn));
      if (cut.length > 0)
        d.logger.warn(
          { component: "planner", chatId, cut },
          "plan bounded: it asked for more than one answer may do",
        );
      d.logger.info(
        {
          component: "planner",
          chatId,
          tasks: plan.tasks.map((t) => t.kind),
          rejected: plan.rejected.length,
        },
        "plan ready",
      );
      return { ...done, spawn: [...spawn, ...schedules] };
    },
  };
}
