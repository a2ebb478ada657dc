/**
 * Composition, stage 4: what the persona does — the chat actions over GramJS (tracked as its own
 * sends), rolling lane summaries, the addressing calls of smart and talkative groups, and the
 * scheduler running every task kind's handler (planning included) behind the admission gate.
 */
import { SpeechVoiceMaker } from "../media/voice-maker";
import type { AgentRuntimeOptions, Late, Stage } from "./agent-options";
import type { Media } from "./compose-media";
import type { Policy } from "./compose-policy";
import type { Stores } from "./compose-stores";
import { speakerDirectory } from "../context/speaker-directory";
import { ImplicitAddressing } from "../inbound/addressing-implicit";
import { MAX_ANSWER_AGE_MS } from "../inbound/pipeline";
import { metrics, watchVoiceNotes } from "../metrics/metrics";
import { OwnSends, TrackedActions } from "../owner/own-sends";
import { PlanTraceStore } from "../store/plan-traces";
import { LookupRunStore } from "../store/lookup-runs";
import { lookUpsOn } from "../config/persona-lookups";
import { LaneSummaries } from "../summary/lane-summaries";
import { llmRateKey } from "../tasks/llm-wait";
import { RateLimits } from "../tasks/rate-limits";
import { Scheduler } from "../tasks/scheduler";
import { GROUP_BAN_KEY } from "../telegram/outbound/rpc-errors";
import { noteWriteRefusal } from "../telegram/entities";
import { GENERAL_TOPIC, topicShut } from "../base/topic-closure";
import { trackResult } from "../telegram/inbound/listen";
import { TypingWatch } from "../telegram/inbound/typing-watch";
import { AccountHealth } from "../telegram/outbound/account-health";
import { GramActions } from "../telegram/outbound/gramjs-actions";
import { ACTIVE_WINDOW_MS, ActiveChats } from "./active-chats";
import { taskHandlers, type ActionHandlerDeps } from "./task-handlers";
import { IntentionStore } from "../store/intentions";
import type { ChatType } from "../base/types";
import { NO_WRITES } from "../base/chat-writes";
import type { MemoryMeaning } from "../memory/meaning";
import { Intentions } from "../life/intentions";
import { recallIntentionPlans } from "../life/recall-plans";
import { DepartureStore } from "../store/departures";
import { Presence, PresentActions } from "../life/presence";

export interface Tasks {
  /** The persona's own sends, so their echoes are not taken for the owner's. */
  readonly own: OwnSends;
  readonly typing: TypingWatch;
  readonly laneSummaries: LaneSummaries;
  readonly addressing: ImplicitAddressing;
  readonly scheduler: Scheduler;
  /** The account's server limits (flood waits, slow mode, PEER_FLOOD), persisted. */
  readonly limits: RateLimits;
  /** The supergroups the persona is active in (their differences are polled). */
  readonly active: ActiveChats;
  /** Telegram's restrictions of the account (frozen, PEER_FLOOD), as its writes met them. */
  readonly accountHealth: AccountHealth;
  /** The persona's own intentions: kept, fired when due, bounded (life/intentions.ts). */
  readonly intentions: Intentions;
  readonly intentionStore: IntentionStore;
  /** The account's online status, following what the persona does. */
  readonly presence: Presence;
  /** Stop reporting her held voice notes to the metrics (the runtime stops). */
  readonly unwatchVoice: () => void;
}

export function composeTasks(
  o: AgentRuntimeOptions,
  s: Stage,
  st: Stores,
  p: Policy,
  m: Media & { readonly meaning?: MemoryMeaning },
  late: Late,
): Tasks {
  const { agent, clock, logger } = s;
  const forum = (chatId: string) => st.chats.get(chatId)?.chatType === "forum";
  const maxAnswerAgeMs = o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS;
  const telegramNow = () => s.telegramTime.now();
  const typing = new TypingWatch(() => clock.now());
  const own = new OwnSends(clock);
  const limits = new RateLimits(o.db, agent, logger);
  const accountHealth = new AccountHealth({
    client: o.client,
    limits,
    persona: o.persona.name,
    logger,
    clock,
    // Saved Messages: the owner reads it (scheduler below; told only once tasks run).
    tellOwner: (text) => scheduler.add(o.selfId, [{ kind: "send", payload: { text }, needsRandomId: true }]),
  });
  const gram = new GramActions({
    client: o.client,
    logger,
    lookupChat: m.lookupChat,
    isStored: (chatId, messageId) => st.messages.has(chatId, messageId),
    onResult: (res) => trackResult(st.tracker, res),
    selfId: o.selfId,
    reactions: m.chatReactions,
    ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    onFrozen: (method, e) => accountHealth.noteFrozen(method, e),
    onGroupBan: (chatId) => accountHealth.noteGroupBan(chatId),
    onRefused: (chatId, error, topicId, send) => {
      noteWriteRefusal(st.entities, chatId, error);
      // A topic closed or deleted under her, its service message never seen: the next mention there costs nothing.
      // A send naming no topic went to General, the topic of a forum's plain messages: only a send,
      // and only "closed" (General can be closed, hidden or reopened, never deleted).
      const general = send && error === "TOPIC_CLOSED" && forum(chatId) ? GENERAL_TOPIC : undefined;
      const topic = topicId ?? general;
      if (topic !== undefined && (error === "TOPIC_CLOSED" || error === "TOPIC_DELETED"))
        st.topics.refused(
          chatId,
          topic,
          error === "TOPIC_DELETED",
          st.messages.highestId(chatId) ?? 0,
          clock.now(),
        );
    },
  });
  // Online while it reads and answers, offline when quiet (life/presence.ts).
  const presence = new Presence({ port: gram, clock, logger });
  const actions = new TrackedActions(new PresentActions(gram, presence), own);
  const active = new ActiveChats(clock);
  const intentionStore = new IntentionStore(o.db, agent);
  const answered = metrics.messagesAnswered.labels({ agent });
  answered.inc(0); // every persona's series exists from its start, at 0
  metrics.messagesPlanned.inc({ agent }, 0);
  // Her voice notes (`# Voice`): made in memory, within the day's token budget and the chat's share.
  const voice = o.speech
    ? new SpeechVoiceMaker({
        speech: o.speech,
        setting: () => o.persona.voice,
        // Asked as the plan was (the DM partner's share, strangers' share, the contacts' reserve).
        capped: (chatId) => p.caps.tokensHeld(chatId, p.gate.sendTokenAsk(chatId)),
        personOf: (chatId) => (st.chats.get(chatId)?.chatType === "dm" ? chatId : undefined),
        clock,
        logger,
      })
    : undefined;
  const unwatchVoice = voice ? watchVoiceNotes(agent, () => voice.held) : () => {};
  const deps: ActionHandlerDeps = {
    actions,
    ...(voice ? { voice } : {}),
    keep: (task) => st.tasks.save(task, clock.now()),
    clock,
    logger,
    messages: st.messages,
    limits,
    onSent: (sent) => {
      answered.inc();
      addressing.noteOwn(sent.chatId, clock.now());
      if (st.chats.get(sent.chatId)?.chatType !== "dm") st.reception.spoke(sent.chatId);
      active.note(sent.chatId);
      const stored = st.messages.insert({
        chatId: sent.chatId,
        messageId: sent.messageId,
        senderId: o.selfId,
        senderName: o.persona.name,
        date: clock.now(),
        text: sent.text,
        isAgent: true,
        ...(sent.replyTo !== undefined ? { replyToId: sent.replyTo } : {}),
        ...(sent.topicId !== undefined ? { topicId: sent.topicId } : {}),
      });
      // Her voice note came back through a catch-up before its send was settled (a restart):
      // the row holds the placeholder; it gets her words.
      const row = stored ? undefined : st.messages.get(sent.chatId, sent.messageId);
      if (row?.isAgent && /^\[voice [\d:]+\]$/.test(row.text) && sent.text.startsWith("[voice "))
        st.messages.editText(sent.chatId, sent.messageId, sent.text);
      st.messages.commit();
    },
    onReacted: (r) => st.reactions.setOwn(r.chatId, r.messageId, o.selfId, r.emoji, clock.now()),
    maxAnswerAgeMs,
    telegramNow,
    lookedAt: (date) => s.day.lookedAt(date),
    movedTo: (chatId) => st.moves.successor(chatId),
  };
  // What the answer age of a task that answers messages needs (remember, schedule, look_up): a
  // message's age counts from when she could first read it (asleep: her waking), as for sends.
  const answerAge = {
    messages: st.messages,
    clock,
    logger,
    maxAnswerAgeMs,
    telegramNow,
    lookedAt: (date: number) => s.day.lookedAt(date),
  };
  const laneSummaries: LaneSummaries = new LaneSummaries({
    messages: st.messages,
    chats: st.chats,
    summaries: st.summaries,
    llm: o.llm,
    clock,
    logger,
    add: (graph, batch) => scheduler.add(graph, batch),
    busy: (graph) => scheduler.openTasks(graph).length > 0,
    moving: (graph) => scheduler.moving(graph),
    speakers: () => speakerDirectory(st.entities, { id: o.selfId, name: o.persona.name }),
    window: o.persona.historyWindow,
  });
  const addressing = new ImplicitAddressing({
    persona: o.persona,
    selfId: o.selfId,
    selfUsername: () => o.selfUsername ?? st.entities.get(o.selfId)?.username,
    siblings: o.siblings ?? new Set(),
    settings: st.settings,
    messages: st.messages,
    chats: st.chats,
    scheduler: late.scheduler,
    entities: st.entities,
    llm: o.llm,
    gate: p.gate,
    counts: st.counts,
    clock,
    logger,
    readDelayMs: s.readDelayMs,
    quietMs: s.quietMs,
    maxAnswerAgeMs,
    telegramNow,
    onActive: (chatId) => active.note(chatId),
    reception: st.reception,
  });
  const scheduler: Scheduler = new Scheduler({
    ...o.scheduler,
    ...(o.onAccountLost ? { onAccountLost: o.onAccountLost } : {}),
    store: st.tasks,
    limits,
    typing,
    day: s.day,
    clock,
    logger,
    admit: (task) => p.gate.task(task) ?? intentions.recalledFor(task),
    onFinished: (task, outcome) => {
      metrics.tasks.inc({ agent, kind: task.kind, outcome });
      st.activity.taskEnded(task, outcome);
      intentions.taskEnded(task, outcome);
      // A voice note kept for a send that ended any way (cancelled by a replan, /pause, a
      // takeover; failed; or done) is let go at once, not when the bound pushes it out.
      if (task.kind === "send") voice?.forget(task.id);
      // The account-wide ceiling counts every message that went out (policy/send-ceiling.ts).
      if ((task.kind === "send" || task.kind === "sticker") && outcome === "done")
        p.ceiling.note(task.chatId);
    },
    onFailed: (task, reason) => p.status.taskFailed(task, reason),
    handlers: taskHandlers({
      remember: { memories: st.memories, ...answerAge },
      schedule: {
        // Built below (it needs the scheduler); a schedule task runs only after both exist.
        intentions: { schedule: (n) => intentions.schedule(n) },
        ...answerAge,
      },
      lookUp: {
        ...(o.lookups ? { client: o.lookups } : {}),
        refusal: (chatId, userId, what) => p.lookupRules.check(chatId, userId, what),
        runs: new LookupRunStore(o.db, agent),
        ...answerAge,
      },
      received: {
        persona: o.persona,
        onPlanned: (n) => metrics.messagesPlanned.inc({ agent }, n),
        messages: st.messages,
        chats: st.chats,
        memories: st.memories,
        ...(o.curated ? { curated: o.curated } : {}),
        usernameOf: (userId) => st.entities.get(userId)?.username,
        summaries: laneSummaries,
        planner: o.planner,
        ...(o.llm ? { llmKeys: [llmRateKey(o.llm.modelFor("plan"))] } : {}),
        entities: st.entities,
        // A basic group since upgraded: she writes in its supergroup (docs/chat-upgrades.md).
        writes: (chatId) => {
          const e = st.entities.get(st.moves.successor(chatId) ?? chatId);
          // A DM partner whose account was deleted (stored, unlike the rights, across restarts).
          return e?.kind === "user" && e.gone ? NO_WRITES : e?.writes;
        },
        writesPausedUntil: (chatId) =>
          (st.moves.successor(chatId) ?? chatId).startsWith("-100")
            ? limits.blockedUntil([GROUP_BAN_KEY], clock.now())
            : 0,
        reactions: st.reactions,
        reception: (chatId) => st.reception.line(chatId),
        selfId: o.selfId,
        clock,
        telegramNow,
        logger,
        waitFor: (chatId, topicId) =>
          scheduler
            .openTasks(chatId)
            .filter((t) => t.kind === "read" && t.status === "pending" && t.topicId === topicId)
            .map((t) => t.id),
        maxAnswerAgeMs,
        media: m.media,
        images: m.images,
        ...(o.media?.waitMs !== undefined ? { mediaWaitMs: o.media.waitMs } : {}),
        allowedReactions: (chatId) => m.chatReactions.allowed(chatId),
        topicTitle: (chatId, topicId) => st.topics.title(chatId, topicId),
        // Closed topics take the creator's and topic managers' messages (base/topic-closure.ts).
        topicClosed: (chatId, topicId) => {
          const topic = topicId ?? (forum(chatId) ? GENERAL_TOPIC : undefined); // no topic: General
          if (topic === undefined) return false;
          return topicShut(st.topics.closure(chatId, topic, clock.now()), st.entities.get(chatId)?.writes);
        },
        earlierChat: (chatId) => st.moves.predecessor(chatId),
        ...(m.meaning ? { meaning: m.meaning } : {}),
        ...(voice ? { voice } : {}),
        stickerEmoji: (set) => actions.knownStickerEmoji(set),
        traces: new PlanTraceStore(o.db),
        lookUps: {
          // Read at each plan: `# Look Ups off` in the persona file applies at once (persona-update.ts).
          // Only where a look-up client exists (Gemini's tools: a Gemini key), never offered in vain.
          get on() {
            return o.lookups !== undefined && lookUpsOn(o.persona.lookUps);
          },
          allowed: (chatId, userId) => p.lookupRules.refusal(chatId, userId) === undefined,
        },
        // Built below (it needs the scheduler); planning runs only after both exist.
        intentions: {
          openIn: (chatId) => intentionStore.openIn(chatId),
          takeNotes: (chatId) => intentions.takeNotes(chatId),
          cancel: (id, by) => intentions.cancel(id, by),
        },
      },
      actions: deps,
      addressing,
      summaries: laneSummaries,
      ...(o.llm ? { llm: o.llm } : {}),
    }),
  });
  const intentions: Intentions = new Intentions({
    store: intentionStore,
    persona: o.persona,
    clock,
    logger,
    scheduler,
    gate: p.gate,
    chatType: (chatId) => st.chats.get(chatId)?.chatType as ChatType | undefined,
    partnerLastWrote: (chatId) => st.messages.lastFromOthers(chatId),
    activity: st.activity,
    departures: new DepartureStore(o.db, agent),
    recall: (userId, chatId, reason) =>
      recallIntentionPlans(
        {
          open: (c) => scheduler.openTasks(c),
          get: (id) => st.tasks.get(id),
          cancel: (id, why) => scheduler.cancelTask(id, why),
          askerOf: (id) => intentionStore.get(id)?.forUser,
          save: (t) => st.tasks.save(t, clock.now()),
          replan: (chatId, topicId, payload) =>
            scheduler.add(chatId, [{ kind: "received", payload }], topicId),
          logger,
        },
        userId,
        chatId,
        reason,
      ),
  });
  // The end-of-outage line, /status and the metrics say how many answers waited for the model.
  o.llm?.availability?.reportAs(agent);
  o.llm?.availability?.countWaiting(
    (model) =>
      scheduler.openWithKey(llmRateKey(model)).filter((t) => t.kind === "received" || t.kind === "address")
        .length,
  );
  // Where the persona was addressed or spoke within the last hour, before this start.
  for (const r of st.tasks.recentChats(clock.now() - ACTIVE_WINDOW_MS)) active.note(r.chatId, r.at);
  return {
    own,
    typing,
    laneSummaries,
    addressing,
    scheduler,
    limits,
    active,
    accountHealth,
    intentions,
    intentionStore,
    presence,
    unwatchVoice,
  };
}
