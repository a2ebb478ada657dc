import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { EntityLookup } from "../context/speaker-directory";
import type { Planner } from "./planner";
import type { MemoryStore } from "../store/memories";
import type { CuratedMemories } from "../memory/curated";
import { assemblePlanContext, type SummarySource } from "./plan-context";
import type { ImageSource } from "../media/inline-images";
import { resolveSubject, tellerOf } from "../memory/subject";
import type { MessageStore } from "../store/messages";
import type { ChatStore } from "../store/chats";
import { errorMessage } from "../base/error-message";
import type { ReactionStore } from "../store/reactions";
import type { AllowedReactions } from "../base/standard-reactions";
import type { Clock } from "../base/types";
import { PermanentError } from "../tasks/errors";
import { LLM_RATE_KEY, parkOnOutage } from "../tasks/llm-wait";
import { MAX_ANSWER_AGE_MS } from "../inbound/pipeline";
import { expandPlan, type RememberPayload } from "./expand-plan";
import type { PlanTask } from "./plan-schema";
import { lookedAt, stretchAt } from "../config/persona-rhythm";
import { planTrace, withoutSystem } from "./plan-trace";
import type { PlanTraceStore } from "../store/plan-traces";
import type { MediaDescriber } from "../media/describer";
import type { TaskHandler } from "../tasks/task-handler";
import type { NewTask } from "../tasks/task";
import type { Intention } from "../store/intentions";
import { mayIntend } from "./prompt";
import { scheduleDue, type PlanKind } from "./plan-schema";
import { oneMessage } from "./slow-mode";
import { mayWrite, type ChatWrites } from "../base/chat-writes";
import { abilitiesPart, type ChatAbilities } from "./abilities";
import { earlierChatPart } from "./earlier-chat";
import { lookupSection } from "./lookup-section";
import { intentionAsker } from "./intention-asker";
import { selfFactTeller } from "../memory/says-itself";
import { planVoice, speaksWhenSpokenTo, type VoicePort } from "./voice-offer";

/** The index of a batch's last send or sticker, as an `after` list (none: nothing to wait for). */
function lastSpoken(spawn: readonly NewTask[]): number[] {
  for (let i = spawn.length - 1; i >= 0; i--)
    if (spawn[i]!.kind === "send" || spawn[i]!.kind === "sticker") return [i];
  return [];
}

/** At most this many refused tasks of a plan are told to the next one. */
const MAX_REFUSAL_NOTES = 3;

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
  /** The forum topic was closed by an admin (forumTopic.closed, from its service messages). */
  readonly topicClosed?: (chatId: string, topicId: number) => boolean;
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
  readonly lookUps?: {
    readonly on: boolean;
    allowed(chatId: string, userId: string | undefined): boolean;
  };
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

/** What planning asks of the intentions engine. */
interface IntentionsPort {
  /** The chat's open intentions, soonest first. */
  openIn(chatId: string): readonly Intention[];
  /** What became of this chat's last schedules that were not set (told to its next plan, once). */
  takeNotes?(chatId: string): readonly { date: number; text: string }[];
  cancel(id: number, by: string): Intention | undefined;
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
  const refusedLast = new Map<string, { date: number; text: string }[]>();
  return {
    rateKeys: () => [LLM_RATE_KEY, ...(d.llmKeys ?? [])],
    async run(task) {
      const chatId = task.chatId;
      // The persona's own intentions due now (life/intentions.ts): planned with the messages, or alone.
      const intentions = task.payload.intentions ?? [];
      // A message deleted before it was planned for is not answered (a person would not either).
      const live = task.payload.items.filter((i) => !d.messages.get(chatId, i.messageId)?.deleted);
      if (live.length === 0 && intentions.length === 0) {
        d.logger.info(
          { component: "planner", chatId, messages: task.payload.items.map((i) => i.messageId) },
          "addressed messages deleted before planning; not answered",
        );
        return { type: "done" };
      }
      // The age limit holds here too, not only at inbound: a task left pending by a crash (or a
      // long pause) must not answer a question hours later, out of the blue. Age counts from when
      // the persona first looked (a message of its sleep: its waking, `# Sleep`).
      const maxAge = d.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS;
      const oldest = (d.telegramNow ?? (() => d.clock.now()))() - maxAge;
      const seen = (date: number) => lookedAt(d.persona.rhythm, d.persona.timeZone, date);
      const items = live.filter((i) => seen(d.messages.get(chatId, i.messageId)?.date ?? Infinity) >= oldest);
      if (items.length < live.length) {
        d.logger.info(
          {
            component: "planner",
            chatId,
            messages: live.filter((i) => !items.includes(i)).map((i) => i.messageId),
            maxAgeSec: Math.round(maxAge / 1000),
          },
          "addressed messages too old by the time of planning; not answered",
        );
      }
      if (items.length === 0 && intentions.length === 0) return { type: "done" };
      // Where she may not write (muted, her own restriction): no plan, no request (a person who
      // cannot type there does not compose an answer). Asked again at the next message.
      const may = mayWrite(d.writes?.(chatId), (d.telegramNow ?? (() => d.clock.now()))());
      // The newest addressed message (none: an intention alone).
      const lastId = items.length ? Math.max(...items.map((i) => i.messageId)) : undefined;
      // An unknown chat is treated as a group: block/unblock stay refused unless it is known to be a DM.
      const chat = d.chats.get(chatId) ?? { chatId, chatType: "group" };
      const isDm = chat.chatType === "dm";
      // May this answer be spoken (her # Voice, the chat's rights, how she was spoken to)? Where
      // her text is forbidden but voice messages are not, voice is all she is offered.
      const voice = planVoice(d, {
        chatId,
        isDm,
        mayVoice: may.voice,
        mayText: may.text,
        ...(lastId !== undefined ? { lastId } : {}),
      });
      if (!may.text && !may.sticker && !voice) {
        d.logger.info(
          { component: "planner", chatId, messages: items.map((i) => i.messageId) },
          "she may not write in this chat now (its banned rights); not planned",
        );
        return { type: "done" };
      }
      // A closed forum topic takes no messages from members (TOPIC_CLOSED): nothing planned there.
      if (task.topicId !== undefined && d.topicClosed?.(chatId, task.topicId)) {
        d.logger.info(
          { component: "planner", chatId, topicId: task.topicId, messages: items.map((i) => i.messageId) },
          "the topic is closed; not planned",
        );
        return { type: "done" };
      }
      const pausedUntil = d.writesPausedUntil?.(chatId) ?? 0;
      if (pausedUntil > d.clock.now()) {
        d.logger.debug(
          { component: "planner", chatId, until: new Date(pausedUntil).toISOString() },
          "writes to supergroups are paused (USER_BANNED_IN_CHANNEL); not planned",
        );
        return { type: "done" };
      }
      const forbidden: PlanKind[] = [
        ...(may.text || voice ? [] : ["send" as const]),
        ...(may.sticker ? [] : ["sticker" as const]),
      ];
      // The chat's pending intentions (the due ones it plans for are shown as due, not pending).
      const canIntend = d.intentions !== undefined && mayIntend(d.persona);
      // Schedules of the chat's last plans that their tasks could not store: told to this plan.
      const notSet = d.intentions?.takeNotes?.(chatId) ?? [];
      if (notSet.length > 0)
        refusedLast.set(chatId, [...(refusedLast.get(chatId) ?? []), ...notSet].slice(-MAX_REFUSAL_NOTES));
      const pending = canIntend ? d.intentions!.openIn(chatId).filter((x) => x.state === "pending") : [];
      // The call is for the sender of the last message answered (costs per person).
      // An intention's call is for whom it was set (the task's authors).
      const userId =
        lastId !== undefined ? d.messages.get(chatId, lastId)?.senderId : task.payload.authors?.[0];
      // Every author of the messages answered may make her look things up (a stranger's question
      // in a burst a contact ends is not the contact's to spend), and the result can be said (text).
      const askersMayLookUp = () =>
        items.every((i) => {
          const sender = d.messages.get(chatId, i.messageId)?.senderId;
          return sender !== undefined && d.lookUps!.allowed(chatId, sender);
        });
      // What a look-up found for this round, and whether this round may ask for one (one per answer).
      const lookups = task.payload.lookups ?? [];
      const lookUp: ChatAbilities["lookUp"] = !d.lookUps?.on
        ? "none"
        : lookups.length > 0
          ? "done"
          : lastId !== undefined && may.text && askersMayLookUp()
            ? "offer"
            : "closed";
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
      } = await assemblePlanContext(d, chat, items, d.clock.now(), refusedLast.get(chatId), {
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
      refusedLast.delete(chatId);
      if (plan.rejected.length > 0)
        refusedLast.set(
          chatId,
          plan.rejected.slice(0, MAX_REFUSAL_NOTES).map((r) => ({
            date: d.clock.now(),
            text: `Your last plan's task ${r.index + 1}${r.kind ? ` (${r.kind})` : ""} was not done: ${r.reason.slice(0, 200)}`,
          })),
        );
      // A dry run's empty plan answers nothing: it is no planned answer (metrics, the console).
      if (plan.origin !== "dry-run" && items.length > 0) d.onPlanned?.(items.length);
      // Whether this plan speaks (an intention's plan that sends counts for backing off).
      if (intentions.length > 0)
        task.payload = {
          ...task.payload,
          spoke: plan.tasks.some((t) => t.kind === "send" || t.kind === "sticker"),
        };
      // What the persona means to do later: set (or refused, told to the next plan) and dropped.
      const intentionNotes: { date: number; text: string }[] = [];
      const schedules: NewTask<"schedule">[] = [];
      const answeredAuthors = new Set(
        items.flatMap((i) => {
          const m = d.messages.get(chatId, i.messageId);
          return m && m.senderId !== d.selfId ? [m.senderId] : [];
        }),
      );
      // What the plan asked for beyond what one answer may do (logged once below).
      const cut: string[] = [];
      // A look-up: what comes after it was written without its answer (the next round writes it),
      // so only the part before it is carried out — schedules included.
      const lookAt = plan.tasks.findIndex((t) => t.kind === "look_up");
      const asked = lookAt >= 0 ? (plan.tasks[lookAt] as Extract<PlanTask, { kind: "look_up" }>) : undefined;
      const beforeLookUp = asked ? plan.tasks.slice(0, lookAt) : plan.tasks;
      if (asked && lookAt < plan.tasks.length - 1)
        cut.push(
          `${plan.tasks.length - lookAt - 1} task(s) after look_up dropped (the answer comes with what it finds)`,
        );
      for (const t of beforeLookUp) {
        if (t.kind === "schedule" && d.intentions) {
          const now = d.clock.now();
          // Who asked: the message named or answered, as for a remember (intention-asker.ts).
          const asker = intentionAsker({
            from: t.from,
            lastId,
            authors: answeredAuthors,
            senderOf: (id) => d.messages.get(chatId, id)?.senderId,
            dueFor: task.payload.authors?.[0],
          });
          if (!asker.ok) {
            intentionNotes.push({
              date: now,
              text: `Your schedule "${t.note.slice(0, 80)}" was not set: ${asker.reason}`,
            });
            continue;
          }
          // Stored when its task runs, admitted like a send (life/schedule-handler.ts), exactly once.
          schedules.push({
            kind: "schedule",
            payload: {
              note: t.note,
              dueAt: scheduleDue(t, d.persona.timeZone, now) ?? now,
              setAt: now,
              ...(asker.inReplyTo !== undefined ? { inReplyTo: asker.inReplyTo } : {}),
              ...(asker.forUser !== undefined ? { forUser: asker.forUser } : {}),
              ...(items.length > 0 ? { answers: items.map((i) => i.messageId) } : {}),
            },
            after: [],
          });
        } else if (t.kind === "cancel_schedule" && d.intentions) {
          // Only a plan answering whoever asked for it cancels it (the owner and the console too,
          // elsewhere): dave cannot drop the reminder alice asked for.
          const target = pending.find((x) => x.id === t.id);
          const asker = target?.forUser;
          const answering =
            lastId !== undefined
              ? d.messages.get(chatId, lastId)?.senderId
              : (task.payload.authors ?? []).find((a) => a === asker);
          if (target !== undefined && asker !== undefined && answering !== asker) {
            intentionNotes.push({
              date: d.clock.now(),
              text: `Your cancel_schedule id ${t.id} was not done: it was asked for by someone else, and only they (or the owner) may cancel it`,
            });
            continue;
          }
          d.intentions.cancel(t.id, "by the persona's plan");
        }
      }
      if (intentionNotes.length > 0)
        refusedLast.set(
          chatId,
          [...(refusedLast.get(chatId) ?? []), ...intentionNotes].slice(0, MAX_REFUSAL_NOTES),
        );
      // A remember becomes a task of the graph (remember-handler.ts): admitted, and checked for
      // age, like a send. Who it is about and who said it are decided here, from the messages.
      const where = { chatId, isDm, selfId: d.selfId, targets: targetMessages };
      const authors = new Set(targetMessages.filter((m) => !m.isAgent).map((m) => m.senderId));
      const remember = (t: Extract<PlanTask, { kind: "remember" }>): RememberPayload | undefined => {
        // The message that says it: the one the plan names, else the one answered — but when
        // several people wrote the messages answered, the newest is no evidence of who said it
        // (dave plants a fact, bob writes "lol" after it): unnamed, it is not stored.
        // (What the persona says about itself is its own statement whoever wrote the burst.)
        const aboutMe = t.about?.trim().toLowerCase() === "me";
        // About the persona: its own memory only when it says so itself in this plan (its sends);
        // else it is a claim about it by whoever said it, sourced like any other (issue 36).
        const self = aboutMe
          ? selfFactTeller(
              t.content,
              plan.tasks.flatMap((x) => (x.kind === "send" ? [x.text] : [])),
              targetMessages.filter((m) => !m.isAgent),
            )
          : undefined;
        const own = self?.own === true;
        const sourceId =
          t.from ??
          (self?.own === false ? self.sourceId : undefined) ??
          (authors.size <= 1 || own ? lastId : undefined);
        if (sourceId === undefined) {
          cut.push(
            "a remember: dropped (several people wrote the messages answered and it named none with from)",
          );
          return undefined;
        }
        const source = d.messages.get(chatId, sourceId);
        // Left out, it is about the author of the message that says it (dave's "I'm vegetarian"
        // in a burst bob wrote last is about dave).
        const subject = resolveSubject(t.about, {
          ...where,
          targets: source ? [source] : targetMessages,
          message: (id) => d.messages.get(chatId, id),
          present,
          usernameOf: d.usernameOf ?? (() => undefined),
          // Someone the account knows by that @username (the entity store), not only who is in view.
          memberByUsername: (name) => {
            const id = d.entities.findByUsername(name)?.peerId;
            return id !== undefined && id !== d.selfId && !id.startsWith("-") ? id : undefined;
          },
        });
        const toldBy = own
          ? d.selfId
          : aboutMe
            ? source
              ? source.isAgent
                ? d.selfId
                : source.senderId
              : isDm
                ? chatId
                : undefined
            : tellerOf(subject, source, where);
        return {
          content: t.content,
          ...(subject !== undefined ? { subject } : {}),
          ...(toldBy !== undefined ? { toldBy } : {}),
          sourceId,
        };
      };
      // A forum topic's graph answers in that topic (see graphKey); else where the last message was.
      const topicId =
        task.topicId ??
        (lastId !== undefined ? history.find((m) => m.messageId === lastId)?.topicId : undefined);
      // Slow mode: one message per answer (slow-mode.ts), not a second part a window later; with a
      // look-up the one message is the answer it brings, so no "let me check" takes the window.
      const slow = may.slowmode && !isDm;
      const planned = !slow
        ? beforeLookUp
        : asked
          ? beforeLookUp.filter((t) => t.kind !== "send" && t.kind !== "sticker")
          : oneMessage(beforeLookUp);
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
      if (asked)
        spawn.push({
          kind: "look_up",
          payload: {
            ...(asked.query !== undefined ? { query: asked.query } : {}),
            ...(asked.url !== undefined ? { url: asked.url } : {}),
            items,
            ...(task.payload.authors !== undefined ? { authors: task.payload.authors } : {}),
            answers: items.map((i) => i.messageId),
            ...(userId !== undefined ? { userId } : {}),
          },
          // After her "let me check" is out: the answer it brings never overtakes it.
          after: lastSpoken(spawn),
        });
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

/**
 * The addressed messages were all deleted (by their authors, for everyone) while the plan was
 * being made: the plan is dropped, none of its tasks made (logged once). An intention planned
 * with them still stands.
 */
function deletedWhilePlanning(
  d: Pick<ReceivedHandlerDeps, "messages" | "logger">,
  chatId: string,
  items: readonly { readonly messageId: number }[],
  intentions: number,
): boolean {
  if (items.length === 0 || intentions > 0) return false;
  if (!items.every((i) => d.messages.get(chatId, i.messageId)?.deleted)) return false;
  d.logger.info(
    { component: "planner", chatId, messages: items.map((i) => i.messageId) },
    "addressed messages deleted while planning; the plan is dropped",
  );
  return true;
}
