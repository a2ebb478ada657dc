/**
 * The composition root of one persona: every part of an {@link AgentRuntime} — stores, the
 * admission gate, media, the scheduler with its task handlers, the inbound pipeline, the message
 * feed and the catch-up engine — built from its options and wired to each other. Nothing here
 * runs: starting, stopping and the connection's life are the runtime's (agent-runtime.ts).
 */
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { CuratedMemories } from "../memory/curated";
import type { AccountLostError } from "../tasks/errors";
import type { Llm } from "../llm/llm";
import type { Planner } from "../planning/planner";
import { DEFAULT_PRICES, type PriceTable } from "../llm/prices";
import { compileAddressMatcher } from "../inbound/addressing";
import { ImplicitAddressing } from "../inbound/addressing-implicit";
import { createChangeHandler, type MessageChangeHandler } from "../inbound/changes";
import { createInboundPipeline, MAX_ANSWER_AGE_MS, type InboundHandler } from "../inbound/pipeline";
import { runOwnerCommand } from "../owner/commands";
import { createOutgoingHandler } from "../owner/outgoing";
import { OwnSends, TrackedActions } from "../owner/own-sends";
import { Caps } from "../policy/caps";
import { Gate } from "../policy/gate";
import { AnswerCounts } from "../store/answer-counts";
import { CatchUpChats } from "../store/catch-up-chats";
import { ChatSettingsStore } from "../store/chat-settings";
import { onCommitFailure, type Db } from "../store/db";
import { EntityStore, entityName } from "../store/entities";
import { MediaCache } from "../store/media-cache";
import { MediaImages } from "../store/media-images";
import { MemoryStore } from "../store/memories";
import { MessageStore } from "../store/messages";
import { ReactionStore } from "../store/reactions";
import { PlanTraceStore } from "../store/plan-traces";
import { RefusalStore } from "../store/refusals";
import { TopicStore } from "../store/topics";
import type { Retention } from "../store/retention";
import { standInSenders } from "../store/stand-in-senders";
import { SummaryStore } from "../store/summaries";
import { ACCOUNT_BOX, UpdateStateStore } from "../store/update-state";
import { UsageStore } from "../store/usage";
import { WriteGate } from "../store/write-gate";
import { speakerDirectory } from "../context/speaker-directory";
import { LaneSummaries } from "../summary/lane-summaries";
import { taskHandlers, type ActionHandlerDeps } from "./task-handlers";
import { llmRateKey } from "../tasks/llm-wait";
import { RateLimits } from "../tasks/rate-limits";
import { Scheduler, type SchedulerOptions } from "../tasks/scheduler";
import { TaskStore } from "../tasks/task-store";
import { GramActions } from "../telegram/outbound/gramjs-actions";
import { changedChat, ChatReactions } from "../telegram/outbound/chat-reactions";
import { CatchUp } from "../telegram/inbound/catch-up";
import { trackResult, type TelegramClient } from "../telegram/inbound/listen";
import { createMessageFeed, type MessageFeed } from "../telegram/inbound/message-feed";
import { applyChange } from "../telegram/inbound/listen-changes";
import { REPLY_FETCH_TIMEOUT_MS } from "../telegram/inbound/reply-context";
import { SenderResolver } from "../telegram/inbound/sender-resolver";
import { TypingWatch } from "../telegram/inbound/typing-watch";
import { UpdateTracker } from "../telegram/inbound/update-tracker";
import { DEFAULT_MEDIA_BUDGET_PER_MINUTE, MediaBudget } from "../media/budget";
import { CuratedMedia, type CuratedSources } from "../media/curated";
import { MediaDescriber, type MediaLimits } from "../media/describer";
import { ImageSource } from "../media/inline-images";
import { LlmMediaSource } from "../media/media-llm";
import { TelegramMediaFetcher } from "../telegram/outbound/media-download";
import { metrics } from "../metrics/metrics";
import type { Clock } from "../base/types";
import { CatchUpChain } from "./catch-up-chain";
import { ChannelMembership } from "./channel-membership";
import { chatLookup } from "./chat-lookup";
import { systemClock } from "../base/clock";
import { RuntimeStatus } from "./status-facts";

export interface AgentRuntimeOptions {
  readonly persona: Persona;
  readonly db: Db;
  /** A GramJS client that is logged in (or attached to the emulator). */
  readonly client: TelegramClient;
  /** The account's own user id. */
  readonly selfId: string;
  readonly planner: Planner;
  /**
   * Structured LLM calls other than planning (addressing in smart/talkative groups, summaries,
   * media descriptions). Absent: none are made (smart and talkative then answer only explicit
   * addressing, like strict). When given, usage is recorded from it (the planner should share it).
   */
  readonly llm?: Llm;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Bound on the reply-target fetch (default 5 s). */
  readonly replyTimeoutMs?: number;
  /** Bound on one Telegram request (default 30 s). */
  readonly requestTimeoutMs?: number;
  readonly scheduler?: Pick<SchedulerOptions, "tickMs" | "concurrency" | "maxAttempts" | "retryDelayMs">;
  /** A request hit an account-terminal error (revoked session, banned account…). */
  readonly onAccountLost?: (error: AccountLostError) => void;
  /** Addressed messages older than this are stored but not answered (default 1 h; env `MAX_ANSWER_AGE_SEC`), neither at inbound nor when their task plans. */
  readonly maxAnswerAgeMs?: number;
  /** Catch up when `start()` runs (default true). */
  readonly catchUpOnStart?: boolean;
  /**
   * User ids of the personas running in this process (this one's may be included). Their
   * messages are stored but never answered, even when they mention this persona: the loop guard.
   */
  readonly siblings?: ReadonlySet<string>;
  /** Curated memories of the persona by user id (memory/curated.ts; default none). */
  readonly curated?: CuratedMemories;
  /** Prices for the cost estimate of LLM calls (default: the built-in table). */
  readonly prices?: PriceTable;
  /** The account's @username (without @), for the addressing call; default: the entity store's. */
  readonly selfUsername?: string;
  /** Media understanding (see README "Media"); absent: curated files none, no AI source. */
  readonly media?: MediaRuntimeOptions;
  /** The database's retention job, for `/status` (npm start). */
  readonly retention?: Pick<Retention, "removed" | "last" | "retainDays">;
}

/** How the persona understands photos, stickers and voice. */
export interface MediaRuntimeOptions {
  readonly curated?: CuratedSources;
  /** Describe with the persona's `llm` (purposes "describe" and "transcribe"); false: the chain ends at the cache (default: true when `llm` is given). */
  readonly ai?: boolean;
  /** AI descriptions (download + call) per sliding minute (default 8). */
  readonly budgetPerMinute?: number;
  readonly limits?: Partial<MediaLimits>;
  /** How long an answer waits for descriptions (default 8 s). */
  readonly waitMs?: number;
}

/** The parts of one persona's runtime, wired to each other (see {@link composeAgent}). */
export interface AgentParts {
  readonly logger: Logger;
  readonly clock: Clock;
  readonly messages: MessageStore;
  /** Edits and deletions, live or from a catch-up's difference. */
  readonly changes: MessageChangeHandler;
  readonly memories: MemoryStore;
  readonly reactions: ReactionStore;
  readonly entities: EntityStore;
  readonly updateState: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly usage: UsageStore;
  readonly settings: ChatSettingsStore;
  readonly caps: Caps;
  readonly gate: Gate;
  readonly writeGate: WriteGate;
  readonly typing: TypingWatch;
  readonly images: ImageSource;
  readonly media: MediaDescriber;
  readonly chatReactions: ChatReactions;
  readonly summaries: SummaryStore;
  readonly laneSummaries: LaneSummaries;
  readonly addressing: ImplicitAddressing;
  readonly scheduler: Scheduler;
  readonly inbound: InboundHandler;
  readonly feed: MessageFeed;
  /** Catch-ups and gap fills, one at a time. */
  readonly catchUps: CatchUpChain;
  /** The facts `/status` reports (its start time and last error). */
  readonly status: RuntimeStatus;
  /** Run an owner command (the text typed in Saved Messages) and return its answer. */
  readonly command: (text: string) => string;
  /** Stop rolling memory back when a group commit fails. */
  readonly detachCommitFailure: () => void;
  /** Stop recording LLM usage (absent: the LLM reports none). */
  readonly detachUsage: (() => void) | undefined;
}

/**
 * Build one persona's runtime parts from its options. Parts refer to each other through closures
 * (the scheduler is built with handlers that add to it), so the order below is the order of
 * construction, not of use.
 */
export function composeAgent(o: AgentRuntimeOptions): AgentParts {
  const agent = o.persona.name;
  const clock = o.clock ?? systemClock;
  const logger = o.logger.child({ agent });
  const messages = new MessageStore(o.db, agent);
  const changes = createChangeHandler({ messages, logger });
  const memories = new MemoryStore(o.db, agent);
  const reactions = new ReactionStore(o.db, agent);
  const entities = new EntityStore(o.db, agent);
  const updateState = new UpdateStateStore(o.db, agent);
  const tracker = new UpdateTracker({
    state: updateState,
    clock,
    logger,
    onGap: (box) => void catchUps.fillGap(box),
  });
  const counts = new AnswerCounts(o.db, agent);
  const usage = new UsageStore(o.db, agent, o.prices ?? DEFAULT_PRICES);
  const settings = new ChatSettingsStore(o.db, agent);
  const caps = new Caps({
    counts,
    policy: o.persona.policy,
    usage,
    clock,
    logger,
  });
  const gate = new Gate({
    policy: o.persona.policy,
    selfId: o.selfId,
    siblings: o.siblings ?? new Set(),
    settings,
    caps,
    clock,
    logger,
    isContact: (userId) => entities.get(userId)?.contact,
    usernameOf: (userId) => entities.get(userId)?.username,
    chatOf: (chatId) => messages.chat(chatId),
  });
  const status = new RuntimeStatus({
    persona: o.persona,
    selfId: o.selfId,
    db: o.db,
    client: o.client,
    messages,
    settings,
    scheduler: () => scheduler,
    usage,
    caps,
    llm: o.llm,
    retention: o.retention,
    clock,
  });
  const writeGate = new WriteGate({ clock, logger, file: o.db.name });
  // A group commit that fails (a full disk, an I/O error) is rolled back: memory must not be
  // ahead of the file, or the update state would later be persisted past what was lost.
  const detachCommitFailure = onCommitFailure(o.db, (err) => {
    logger.error(
      { component: "store", file: err.file, code: err.code },
      `could not save incoming messages: ${err.message}; they are fetched again once the database works`,
    );
    updateState.reload();
    entities.reload();
    messages.forgetCaches();
    tracker.resync((box) => (box === ACCOUNT_BOX ? updateState.account()?.pts : updateState.channelPts(box)));
  });
  const typing = new TypingWatch(() => clock.now());
  const detachUsage = (o.llm ?? o.planner).onUsage?.((u) => {
    // A stranger's DM is counted in their own share too.
    const cost = usage.record(u, clock.now(), {
      stranger: u.chatId !== undefined && gate.isStrangerChat(u.chatId),
    });
    const labels = { agent, purpose: u.purpose, model: u.model };
    metrics.llmCalls.inc(labels);
    metrics.llmTokens.inc({ ...labels, kind: "prompt" }, u.promptTokens);
    metrics.llmTokens.inc({ ...labels, kind: "output" }, u.outputTokens);
    metrics.llmTokens.inc({ ...labels, kind: "thinking" }, u.thinkingTokens);
    metrics.llmCostUsd.inc(labels, cost ?? 0);
    if (cost === undefined)
      logger.warn(
        { component: "llm", model: u.model },
        "no price for this model: its cost is not estimated (see LLM_PRICES)",
      );
  });
  const lookupChat = chatLookup(messages, entities);
  const mo = o.media ?? {};
  const fetcher =
    o.llm && mo.ai !== false
      ? new TelegramMediaFetcher({
          client: o.client,
          lookupChat,
          logger,
        })
      : undefined;
  const images = new ImageSource({
    images: new MediaImages(o.db),
    ...(fetcher ? { fetcher } : {}),
    clock,
    logger,
  });
  const media = new MediaDescriber({
    curated: mo.curated ?? { persona: new CuratedMedia(), global: new CuratedMedia() },
    cache: new MediaCache(o.db),
    budget: new MediaBudget(mo.budgetPerMinute ?? DEFAULT_MEDIA_BUDGET_PER_MINUTE, clock),
    ...(o.llm && fetcher ? { llm: new LlmMediaSource(o.llm), fetcher } : {}),
    onDownloaded: (d, bytes) => images.keep(d, bytes),
    clock,
    logger,
    ...(mo.limits ? { limits: mo.limits } : {}),
    onServed: (source) => metrics.mediaDescriptions.inc({ agent, source }),
  });
  const chatReactions = new ChatReactions({
    client: o.client,
    lookupChat,
    logger,
  });
  const own = new OwnSends(clock);
  const actions = new TrackedActions(
    new GramActions({
      client: o.client,
      logger,
      lookupChat,
      isStored: (chatId, messageId) => messages.has(chatId, messageId),
      onResult: (res) => trackResult(tracker, res),
      selfId: o.selfId,
      reactions: chatReactions,
      ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
    }),
    own,
  );
  const limits = new RateLimits(o.db, agent, logger);
  const answered = metrics.messagesAnswered.labels({ agent });
  answered.inc(0); // every persona's series exists from its start, at 0
  metrics.messagesPlanned.inc({ agent }, 0);
  const deps: ActionHandlerDeps = {
    actions,
    clock,
    logger,
    messages,
    limits,
    onSent: (s) => {
      answered.inc();
      addressing.noteOwn(s.chatId, clock.now());
      messages.insert({
        chatId: s.chatId,
        messageId: s.messageId,
        senderId: o.selfId,
        senderName: o.persona.name,
        date: clock.now(),
        text: s.text,
        isAgent: true,
        ...(s.replyTo !== undefined ? { replyToId: s.replyTo } : {}),
        ...(s.topicId !== undefined ? { topicId: s.topicId } : {}),
      });
      messages.commit();
    },
    onReacted: (r) => reactions.setOwn(r.chatId, r.messageId, o.selfId, r.emoji, clock.now()),
    maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
  };
  const summaries = new SummaryStore(o.db, agent);
  const laneSummaries: LaneSummaries = new LaneSummaries({
    messages,
    summaries,
    llm: o.llm,
    clock,
    logger,
    add: (graph, batch) => scheduler.add(graph, batch),
    busy: (graph) => scheduler.openTasks(graph).length > 0,
    moving: (graph) => scheduler.moving(graph),
    speakers: () => speakerDirectory(entities, { id: o.selfId, name: o.persona.name }),
    window: o.persona.historyWindow,
  });
  const readDelayMs = o.persona.readDelaySec * 1000;
  const quietMs = o.persona.quietWindowSec * 1000;
  const addressing = new ImplicitAddressing({
    persona: o.persona,
    selfId: o.selfId,
    selfUsername: () => o.selfUsername ?? entities.get(o.selfId)?.username,
    siblings: o.siblings ?? new Set(),
    settings,
    messages,
    scheduler: () => scheduler,
    entities,
    llm: o.llm,
    gate,
    counts,
    clock,
    logger,
    readDelayMs,
    quietMs,
    maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
  });
  const scheduler: Scheduler = new Scheduler({
    ...o.scheduler,
    ...(o.onAccountLost ? { onAccountLost: o.onAccountLost } : {}),
    store: new TaskStore(o.db, agent),
    limits,
    typing,
    clock,
    logger,
    admit: (task) => gate.task(task),
    onFinished: (task, outcome) => metrics.tasks.inc({ agent, kind: task.kind, outcome }),
    onFailed: (task, reason) => status.taskFailed(task, reason),
    handlers: taskHandlers({
      received: {
        persona: o.persona,
        onPlanned: (n) => metrics.messagesPlanned.inc({ agent }, n),
        messages,
        memories,
        ...(o.curated ? { curated: o.curated } : {}),
        usernameOf: (userId) => entities.get(userId)?.username,
        summaries: laneSummaries,
        planner: o.planner,
        ...(o.llm ? { llmKeys: [llmRateKey(o.llm.modelFor("plan"))] } : {}),
        entities,
        reactions,
        selfId: o.selfId,
        clock,
        logger,
        waitFor: (chatId, topicId) =>
          scheduler
            .openTasks(chatId)
            .filter((t) => t.kind === "read" && t.status === "pending" && t.topicId === topicId)
            .map((t) => t.id),
        maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
        media,
        images,
        ...(mo.waitMs !== undefined ? { mediaWaitMs: mo.waitMs } : {}),
        allowedReactions: (chatId) => chatReactions.allowed(chatId),
        traces: new PlanTraceStore(o.db),
      },
      actions: deps,
      addressing,
      summaries: laneSummaries,
      ...(o.llm ? { llm: o.llm } : {}),
    }),
  });
  const addressed = metrics.messagesAddressed.labels({ agent });
  addressed.inc(0);
  metrics.messagesStored.of(agent);
  // The end-of-outage line, /status and the metrics say how many answers waited for the model.
  o.llm?.availability?.reportAs(agent);
  o.llm?.availability?.countWaiting(
    (model) =>
      scheduler.openWithKey(llmRateKey(model)).filter((t) => t.kind === "received" || t.kind === "address")
        .length,
  );
  /** An owner command (Saved Messages, or the operator console): its answer. */
  const command = (text: string): string =>
    runOwnerCommand(text, {
      selfId: o.selfId,
      messages,
      settings,
      scheduler,
      status: () => status.facts(),
      memories,
      nameOf: (userId) => {
        const e = entities.get(userId);
        return e ? entityName(e) : undefined;
      },
    });
  const refusals = new RefusalStore(o.db, agent);
  const topics = new TopicStore(o.db, agent);
  const inbound = createInboundPipeline({
    messages,
    names: compileAddressMatcher([o.persona.name, ...o.persona.aliases]),
    logger,
    enqueue: (chatId, messageId, a) => {
      addressing.notePartner(chatId, a.senderId);
      scheduler.enqueueReceived(chatId, messageId, { readDelayMs, quietMs, ...a });
    },
    attachReply: (chatId, messageId, reply) => scheduler.attachReply(chatId, messageId, reply),
    maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
    standIns: new Set(standInSenders(o.db, agent).map((r) => `${r.chatId}\u0000${r.senderId}`)),
    now: () => clock.now(),
    admit: (m) => gate.message(m),
    refused: (m, reason) => refusals.record(m.chatId, m.messageId, reason, clock.now()),
    implicit: (m) => addressing.consider(m),
    stored: metrics.messagesStored.of(agent),
    onAddressed: () => addressed.inc(),
    outgoing: createOutgoingHandler({
      selfId: o.selfId,
      name: o.persona.name,
      takeoverSilenceMs: o.persona.policy.takeoverSilenceMin * 60_000,
      messages,
      own,
      settings,
      scheduler,
      clock,
      logger,
      command,
    }),
  });
  const feed = createMessageFeed({
    handler: inbound,
    entities,
    resolver: new SenderResolver({
      client: o.client,
      entities,
      state: updateState,
      logger,
    }),
    selfId: o.selfId,
    replyTimeoutMs: o.replyTimeoutMs ?? REPLY_FETCH_TIMEOUT_MS,
    logger,
    gate: writeGate,
    dbFile: o.db.name,
    topicTitled: (t) => topics.named(t.chatId, t.topicId, t.title, t.messageId),
  });
  const catchUpChats = new CatchUpChats(o.db, agent);
  const membership = new ChannelMembership({ entities, tracker, logger });
  entities.onMembership((e, gone) => membership.changed(e, gone));
  const engine = new CatchUp({
    client: o.client,
    entities,
    state: updateState,
    tracker,
    feed,
    highestId: (chatId) => messages.highestId(chatId),
    commonChats: () => catchUpChats.commonChats(),
    knownChannels: () => catchUpChats.knownChannels(),
    logger,
    // The summary's duration is real time, whatever clock the runtime runs.
    now: () => performance.now(),
    clockNow: () => clock.now(),
    onOtherUpdates: (updates) => {
      for (const u of updates) {
        applyChange(changes, u);
        const changed = changedChat(u);
        if (changed !== undefined) chatReactions.forget(changed);
      }
    },
    onChannelLost: (chatId, error) => membership.lost(chatId, error),
  });
  const catchUps = new CatchUpChain({ engine, agent, logger });
  return {
    logger,
    clock,
    messages,
    changes,
    memories,
    reactions,
    entities,
    updateState,
    tracker,
    usage,
    settings,
    caps,
    gate,
    writeGate,
    typing,
    images,
    media,
    chatReactions,
    summaries,
    laneSummaries,
    addressing,
    scheduler,
    inbound,
    feed,
    catchUps,
    status,
    command,
    detachCommitFailure,
    detachUsage,
  };
}
