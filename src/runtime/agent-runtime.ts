import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import { compileAddressMatcher } from "../inbound/addressing";
import { ImplicitAddressing } from "../inbound/addressing-implicit";
import { createInboundPipeline, MAX_ANSWER_AGE_MS, type InboundHandler } from "../inbound/pipeline";
import type { Llm } from "../llm/llm";
import type { Planner } from "../llm/planner";
import { DEFAULT_PRICES, type PriceTable } from "../llm/prices";
import { runOwnerCommand } from "../owner/commands";
import { createOutgoingHandler } from "../owner/outgoing";
import { OwnSends, TrackedActions } from "../owner/own-sends";
import type { LastError, StatusFacts } from "../owner/status";
import { Gate } from "../policy/gate";
import { strangerTokenCap } from "../config/persona-policy";
import { Caps } from "../policy/caps";
import { ChatSettingsStore } from "../store/chat-settings";
import { onCommitFailure, type Db } from "../store/db";
import { UsageStore } from "../store/usage";
import { MemoryStore } from "../store/memories";
import { SummaryStore } from "../store/summaries";
import { WriteGate } from "../store/write-gate";
import { speakerDirectory } from "../context/speaker-directory";
import { isSummaryGraph, LaneSummaries } from "../summary/lane-summaries";
import type { CuratedMemories } from "../memory/curated";
import { EntityStore, entityName, type EntityRecord } from "../store/entities";
import { ReactionStore } from "../store/reactions";
import { createReactionHandler } from "../inbound/reactions";
import { MessageStore, type ChatInfo } from "../store/messages";
import { ACCOUNT_BOX, UpdateStateStore } from "../store/update-state";
import {
  blockHandler,
  reactHandler,
  readHandler,
  sendHandler,
  stickerHandler,
  typingHandler,
  waitHandler,
  type ActionHandlerDeps,
} from "../tasks/handlers/action-handlers";
import type { AccountLostError } from "../tasks/errors";
import { accountLost } from "../telegram/account-errors";
import { receivedHandler } from "../tasks/handlers/received-handler";
import { llmRateKey } from "../tasks/llm-wait";
import type { AvailabilitySnapshot } from "../llm/availability";
import { RateLimits } from "../tasks/rate-limits";
import { Scheduler, type SchedulerOptions } from "../tasks/scheduler";
import { TaskStore } from "../tasks/task-store";
import { GramActions } from "../telegram/gramjs-actions";
import { changedChat, ChatReactions } from "../telegram/chat-reactions";
import { CatchUp, type CatchUpSummary } from "../telegram/catch-up";
import { listenForMessages, trackResult, type TelegramClient } from "../telegram/listen";
import { createMessageFeed, type MessageFeed } from "../telegram/message-feed";
import { createChangeHandler, type MessageChangeHandler } from "../inbound/changes";
import { applyChange, listenForChanges } from "../telegram/listen-changes";
import { REPLY_FETCH_TIMEOUT_MS } from "../telegram/reply-context";
import { SenderResolver } from "../telegram/sender-resolver";
import { TypingWatch } from "../telegram/typing-watch";
import { UpdateTracker } from "../telegram/update-tracker";
import type { Clock } from "../types";
import { catchUpProgress } from "./catch-up-progress";
import { DEFAULT_MEDIA_BUDGET_PER_MINUTE, MediaBudget } from "../media/budget";
import { CuratedMedia, type CuratedSources } from "../media/curated";
import { MediaDescriber, type MediaLimits } from "../media/describer";
import { LlmMediaSource } from "../llm/media-llm";
import { MediaCache } from "../store/media-cache";
import { MediaImages } from "../store/media-images";
import { ImageSource } from "../media/inline-images";
import { TelegramMediaFetcher } from "../telegram/media-download";
import { systemClock } from "./clock";
import { metrics } from "../metrics/metrics";
import { databaseBytes, type Retention } from "../store/retention";

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

/** How long `stop()` waits for running tasks (a send in flight) by default. */
export const STOP_GRACE_MS = 10_000;

/**
 * One persona on one account: the inbound pipeline fed by the account's updates, and the
 * scheduler running its task graphs against the account. State is in `db` only, so a new
 * runtime on the same database picks up where a dead one stopped.
 */
export class AgentRuntime {
  readonly messages: MessageStore;
  /** Edits and deletions, live or from a catch-up's difference. */
  private readonly changes: MessageChangeHandler;
  readonly memories: MemoryStore;
  /** Rolling summaries of thread lanes (made by `summarize` tasks on their own graphs). */
  readonly laneSummaries: LaneSummaries;
  /** The stored lane summaries. */
  readonly summaries: SummaryStore;
  /** People's reactions to the persona's messages, and the persona's own reactions. */
  readonly reactions: ReactionStore;
  readonly scheduler: Scheduler;
  readonly inbound: InboundHandler;
  readonly entities: EntityStore;
  readonly updateState: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly feed: MessageFeed;
  /** Other people's typing, from Telegram's typing updates: a due burst waits while its author types. */
  readonly typing: TypingWatch;
  /** The catch-up started by `start()` (resolves when it finished; never rejects). */
  caughtUp: Promise<CatchUpSummary | undefined> = Promise.resolve(undefined);
  private readonly engine: CatchUp;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;
  /** The persona's structured LLM calls (llm.ts), when it has one. */
  readonly llm: Llm | undefined;
  /** Every LLM call's tokens and estimated cost. */
  readonly usage: UsageStore;
  /** What the owner set per chat (pause, mode, takeover silence). */
  readonly settings: ChatSettingsStore;
  readonly caps: Caps;
  /** The admission gate: in front of every LLM call and every action (policy/gate.ts). */
  readonly gate: Gate;
  /** smart/talkative groups: the prefilter and the addressing call. */
  readonly addressing: ImplicitAddressing;
  private detach: (() => void) | undefined;
  private detachUsage: (() => void) | undefined;
  private detachCommitFailure: (() => void) | undefined;
  private startedAt: number;
  private lastError: LastError | undefined;
  private readonly logger: Logger;
  private readonly clock: Clock;
  /** The media description chain (curated → cache → budget → AI). */
  readonly media: MediaDescriber;
  /** Pictures sent inline with planning requests (the addressed photo). */
  readonly images: ImageSource;
  /** What each chat allows to react with (cached; forgotten when Telegram says the chat changed). */
  readonly chatReactions: ChatReactions;
  /** Inbound work waiting (in order) while another process holds the database's write lock. */
  readonly writeGate: WriteGate;

  constructor(private readonly o: AgentRuntimeOptions) {
    const agent = o.persona.name;
    this.clock = o.clock ?? systemClock;
    this.logger = o.logger.child({ agent });
    this.messages = new MessageStore(o.db, agent);
    this.changes = createChangeHandler({ messages: this.messages, logger: this.logger });
    this.memories = new MemoryStore(o.db, agent);
    this.reactions = new ReactionStore(o.db, agent);
    this.entities = new EntityStore(o.db, agent);
    this.entities.onMembership((e, gone) => this.membershipChanged(e, gone));
    this.updateState = new UpdateStateStore(o.db, agent);
    this.tracker = new UpdateTracker({
      state: this.updateState,
      clock: this.clock,
      logger: this.logger,
      onGap: (box) => void this.fillGap(box),
    });
    this.usage = new UsageStore(o.db, agent, o.prices ?? DEFAULT_PRICES);
    this.settings = new ChatSettingsStore(o.db, agent);
    this.caps = new Caps({
      db: o.db,
      agent,
      policy: o.persona.policy,
      usage: this.usage,
      clock: this.clock,
      logger: this.logger,
    });
    this.gate = new Gate({
      policy: o.persona.policy,
      selfId: o.selfId,
      siblings: o.siblings ?? new Set(),
      settings: this.settings,
      caps: this.caps,
      clock: this.clock,
      logger: this.logger,
      isContact: (userId) => this.entities.get(userId)?.contact,
      usernameOf: (userId) => this.entities.get(userId)?.username,
      chatOf: (chatId) => this.messages.chat(chatId),
    });
    this.startedAt = this.clock.now();
    this.writeGate = new WriteGate({ clock: this.clock, logger: this.logger, file: o.db.name });
    // A group commit that fails (a full disk, an I/O error) is rolled back: memory must not be
    // ahead of the file, or the update state would later be persisted past what was lost.
    this.detachCommitFailure = onCommitFailure(o.db, (err) => {
      this.logger.error(
        { component: "store", file: err.file, code: err.code },
        `could not save incoming messages: ${err.message}; they are fetched again once the database works`,
      );
      this.updateState.reload();
      this.entities.reload();
      this.messages.forgetCaches();
      this.tracker.resync((box) =>
        box === ACCOUNT_BOX ? this.updateState.account()?.pts : this.updateState.channelPts(box),
      );
    });
    this.typing = new TypingWatch(() => this.clock.now());
    this.llm = o.llm;
    this.detachUsage = (o.llm ?? o.planner).onUsage?.((u) => {
      // A stranger's DM is counted in their own share too.
      const cost = this.usage.record(u, this.clock.now(), {
        stranger: u.chatId !== undefined && this.gate.isStrangerChat(u.chatId),
      });
      const labels = { agent, purpose: u.purpose, model: u.model };
      metrics.llmCalls.inc(labels);
      metrics.llmTokens.inc({ ...labels, kind: "prompt" }, u.promptTokens);
      metrics.llmTokens.inc({ ...labels, kind: "output" }, u.outputTokens);
      metrics.llmTokens.inc({ ...labels, kind: "thinking" }, u.thinkingTokens);
      metrics.llmCostUsd.inc(labels, cost ?? 0);
      if (cost === undefined)
        this.logger.warn(
          { component: "llm", model: u.model },
          "no price for this model: its cost is not estimated (see LLM_PRICES)",
        );
    });
    const mo = o.media ?? {};
    const fetcher =
      o.llm && mo.ai !== false
        ? new TelegramMediaFetcher({
            client: o.client,
            lookupChat: (chatId) => this.lookupChat(chatId),
            logger: this.logger,
          })
        : undefined;
    this.images = new ImageSource({
      images: new MediaImages(o.db),
      ...(fetcher ? { fetcher } : {}),
      clock: this.clock,
      logger: this.logger,
    });
    this.media = new MediaDescriber({
      curated: mo.curated ?? { persona: new CuratedMedia(), global: new CuratedMedia() },
      cache: new MediaCache(o.db),
      budget: new MediaBudget(mo.budgetPerMinute ?? DEFAULT_MEDIA_BUDGET_PER_MINUTE, this.clock),
      ...(o.llm && fetcher ? { llm: new LlmMediaSource(o.llm), fetcher } : {}),
      onDownloaded: (d, bytes) => this.images.keep(d, bytes),
      clock: this.clock,
      logger: this.logger,
      ...(mo.limits ? { limits: mo.limits } : {}),
      onServed: (source) => metrics.mediaDescriptions.inc({ agent, source }),
    });
    this.chatReactions = new ChatReactions({
      client: o.client,
      lookupChat: (chatId) => this.lookupChat(chatId),
      logger: this.logger,
    });
    const own = new OwnSends(this.clock);
    const actions = new TrackedActions(
      new GramActions({
        client: o.client,
        logger: this.logger,
        lookupChat: (chatId) => this.lookupChat(chatId),
        isStored: (chatId, messageId) => this.messages.has(chatId, messageId),
        onResult: (res) => trackResult(this.tracker, res),
        selfId: o.selfId,
        reactions: this.chatReactions,
        ...(o.requestTimeoutMs !== undefined ? { requestTimeoutMs: o.requestTimeoutMs } : {}),
      }),
      own,
    );
    const limits = new RateLimits(o.db, agent, this.logger);
    const answered = metrics.messagesAnswered.labels({ agent });
    answered.inc(0); // every persona's series exists from its start, at 0
    metrics.messagesPlanned.inc({ agent }, 0);
    const deps: ActionHandlerDeps = {
      actions,
      clock: this.clock,
      logger: this.logger,
      messages: this.messages,
      limits,
      onSent: (s) => {
        answered.inc();
        this.addressing.noteOwn(s.chatId, this.clock.now());
        this.messages.insert({
          chatId: s.chatId,
          messageId: s.messageId,
          senderId: o.selfId,
          senderName: o.persona.name,
          date: this.clock.now(),
          text: s.text,
          isAgent: true,
          ...(s.replyTo !== undefined ? { replyToId: s.replyTo } : {}),
          ...(s.topicId !== undefined ? { topicId: s.topicId } : {}),
        });
        this.messages.commit();
      },
      onReacted: (r) => this.reactions.setOwn(r.chatId, r.messageId, o.selfId, r.emoji, this.clock.now()),
      maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
    };
    this.summaries = new SummaryStore(o.db, agent);
    this.laneSummaries = new LaneSummaries({
      messages: this.messages,
      summaries: this.summaries,
      llm: o.llm,
      clock: this.clock,
      logger: this.logger,
      add: (graph, batch) => this.scheduler.add(graph, batch),
      busy: (graph) => this.scheduler.openTasks(graph).length > 0,
      speakers: () => speakerDirectory(this.entities, { id: o.selfId, name: o.persona.name }),
      window: o.persona.historyWindow,
    });
    const readDelayMs = o.persona.readDelaySec * 1000;
    const quietMs = o.persona.quietWindowSec * 1000;
    this.addressing = new ImplicitAddressing({
      persona: o.persona,
      selfId: o.selfId,
      selfUsername: () => o.selfUsername ?? this.entities.get(o.selfId)?.username,
      siblings: o.siblings ?? new Set(),
      settings: this.settings,
      messages: this.messages,
      scheduler: () => this.scheduler,
      entities: this.entities,
      llm: o.llm,
      gate: this.gate,
      db: o.db,
      clock: this.clock,
      logger: this.logger,
      readDelayMs,
      quietMs,
      maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
    });
    this.scheduler = new Scheduler({
      ...o.scheduler,
      ...(o.onAccountLost ? { onAccountLost: o.onAccountLost } : {}),
      store: new TaskStore(o.db, agent),
      limits,
      typing: this.typing,
      clock: this.clock,
      logger: this.logger,
      admit: (task) => this.gate.task(task),
      onFinished: (task, outcome) => metrics.tasks.inc({ agent, kind: task.kind, outcome }),
      onFailed: (task, reason) => {
        this.lastError = {
          at: this.clock.now(),
          text: `${task.kind} in ${this.messages.chat(task.chatId)?.title ?? task.chatId}: ${reason}`,
        };
      },
      handlers: {
        received: receivedHandler({
          persona: o.persona,
          onPlanned: (n) => metrics.messagesPlanned.inc({ agent }, n),
          messages: this.messages,
          memories: this.memories,
          ...(o.curated ? { curated: o.curated } : {}),
          usernameOf: (userId) => this.entities.get(userId)?.username,
          summaries: this.laneSummaries,
          planner: o.planner,
          ...(o.llm ? { llmKeys: [llmRateKey(o.llm.modelFor("plan"))] } : {}),
          entities: this.entities,
          reactions: this.reactions,
          selfId: o.selfId,
          clock: this.clock,
          logger: this.logger,
          waitFor: (chatId, topicId) =>
            this.scheduler
              .openTasks(chatId)
              .filter((t) => t.kind === "read" && t.status === "pending" && t.topicId === topicId)
              .map((t) => t.id),
          maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
          media: this.media,
          images: this.images,
          ...(mo.waitMs !== undefined ? { mediaWaitMs: mo.waitMs } : {}),
          allowedReactions: (chatId) => this.chatReactions.allowed(chatId),
        }),
        typing: typingHandler(deps),
        send: sendHandler(deps),
        sticker: stickerHandler(deps),
        react: reactHandler(deps),
        wait: waitHandler(deps),
        read: readHandler(deps),
        block: blockHandler(deps, "block"),
        unblock: blockHandler(deps, "unblock"),
        summarize: this.laneSummaries.handler(),
        address: this.addressing.handler(),
      },
    });
    const addressed = metrics.messagesAddressed.labels({ agent });
    addressed.inc(0);
    metrics.messagesStored.of(agent);
    // The end-of-outage line and /status say how many answers waited for the model.
    o.llm?.availability?.countWaiting(
      (model) =>
        this.scheduler
          .openWithKey(llmRateKey(model))
          .filter((t) => t.kind === "received" || t.kind === "address").length,
    );
    this.inbound = createInboundPipeline({
      messages: this.messages,
      names: compileAddressMatcher([o.persona.name, ...o.persona.aliases]),
      logger: this.logger,
      enqueue: (chatId, messageId, a) => {
        this.addressing.notePartner(chatId, a.senderId);
        this.scheduler.enqueueReceived(chatId, messageId, { readDelayMs, quietMs, ...a });
      },
      attachReply: (chatId, messageId, reply) => this.scheduler.attachReply(chatId, messageId, reply),
      maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
      standIns: new Set(
        (
          o.db
            .prepare(
              `SELECT DISTINCT chat_id, sender_id FROM messages WHERE agent = ? AND sender_name = 'user ' || sender_id`,
            )
            .all(agent) as { chat_id: string; sender_id: string }[]
        ).map((r) => `${r.chat_id}\u0000${r.sender_id}`),
      ),
      now: () => this.clock.now(),
      admit: (m) => this.gate.message(m),
      implicit: (m) => this.addressing.consider(m),
      stored: metrics.messagesStored.of(agent),
      onAddressed: () => addressed.inc(),
      outgoing: createOutgoingHandler({
        selfId: o.selfId,
        name: o.persona.name,
        takeoverSilenceMs: o.persona.policy.takeoverSilenceMin * 60_000,
        messages: this.messages,
        own,
        settings: this.settings,
        scheduler: this.scheduler,
        clock: this.clock,
        logger: this.logger,
        command: (text) =>
          runOwnerCommand(text, {
            selfId: o.selfId,
            messages: this.messages,
            settings: this.settings,
            scheduler: this.scheduler,
            status: () => this.status(),
            memories: this.memories,
            nameOf: (userId) => {
              const e = this.entities.get(userId);
              return e ? entityName(e) : undefined;
            },
          }),
      }),
    });
    this.feed = createMessageFeed({
      handler: this.inbound,
      entities: this.entities,
      resolver: new SenderResolver({
        client: o.client,
        entities: this.entities,
        state: this.updateState,
        logger: this.logger,
      }),
      selfId: o.selfId,
      replyTimeoutMs: o.replyTimeoutMs ?? REPLY_FETCH_TIMEOUT_MS,
      logger: this.logger,
      gate: this.writeGate,
      dbFile: o.db.name,
    });
    const commonChats = o.db
      .prepare(`SELECT DISTINCT chat_id FROM messages WHERE agent = ? AND chat_id NOT LIKE '-100%'`)
      .pluck();
    const channelChats = o.db
      .prepare(`SELECT chat_id FROM chats WHERE agent = ? AND chat_id LIKE '-100%'`)
      .pluck();
    this.engine = new CatchUp({
      client: o.client,
      entities: this.entities,
      state: this.updateState,
      tracker: this.tracker,
      feed: this.feed,
      highestId: (chatId) => this.messages.highestId(chatId),
      commonChats: () => commonChats.all(agent) as string[],
      knownChannels: () => channelChats.all(agent) as string[],
      logger: this.logger,
      now: () => Date.now(),
      onOtherUpdates: (updates) => {
        for (const u of updates) {
          applyChange(this.changes, u);
          const changed = changedChat(u);
          if (changed !== undefined) this.chatReactions.forget(changed);
        }
      },
      onChannelLost: (chatId, error) => {
        const e = this.entities.get(chatId);
        if (!e || e.gone) return;
        this.lostReasons.set(chatId, error);
        this.entities.observe({ ...e, gone: true }); // → membershipChanged
      },
    });
  }

  /** Why a channel was found lost (an RPC error), for its one log line. */
  private readonly lostReasons = new Map<string, string>();

  /**
   * The account left (or was removed from) a channel, or is in it again. Gone: its update state is
   * dropped — no retries, no catch-up — with one log line; back: the next update starts it afresh.
   */
  private membershipChanged(e: EntityRecord, gone: boolean): void {
    const name = e.title ?? e.peerId;
    if (gone) {
      const reason = this.lostReasons.get(e.peerId);
      this.lostReasons.delete(e.peerId);
      this.tracker.drop(e.peerId);
      this.logger.warn(
        { component: "updates", chatId: e.peerId, ...(reason ? { rpcError: reason } : {}) },
        `no longer a member of ${name} (${reason ?? "left or removed"}); its updates are not fetched any more`,
      );
    } else {
      this.logger.info(
        { component: "updates", chatId: e.peerId },
        `a member of ${name} again; following its updates`,
      );
    }
  }

  /** A chat's type and access hash: the chats table, else the entity store. */
  private lookupChat(chatId: string): ChatInfo | undefined {
    const c = this.messages.chat(chatId);
    if (c?.accessHash !== undefined || c?.chatType === "group") return c;
    const e = this.entities.get(chatId);
    if (!e) return c;
    const chatType = c?.chatType ?? (e.kind === "user" ? "dm" : e.kind === "chat" ? "group" : "supergroup");
    return {
      chatId,
      chatType,
      ...(c?.title !== undefined ? { title: c.title } : {}),
      ...(e.accessHash !== undefined && !e.min ? { accessHash: e.accessHash } : {}),
    };
  }

  /**
   * Fetch what was missed — on start, after a reconnect, or whenever the caller knows the
   * connection was dead — and hand it to the inbound pipeline. Runs one at a time; resolves with
   * what it did (also logged as one line).
   */
  catchUp(): Promise<CatchUpSummary> {
    const run = this.chain.then(async () => {
      const progress = catchUpProgress();
      try {
        const s = await this.engine.run();
        const agent = this.o.persona.name;
        metrics.catchUpRuns.inc({ agent });
        metrics.catchUpRequests.inc({ agent }, s.requests);
        metrics.catchUpMessages.inc({ agent }, s.messages);
        this.logger.info(
          {
            component: "catch-up",
            messages: s.messages,
            chats: s.chats,
            requests: s.requests,
            seconds: Math.round(s.ms / 100) / 10,
          },
          `caught up: ${s.messages} messages in ${s.chats} chats, ${s.requests} requests, ${(s.ms / 1000).toFixed(1)} s`,
        );
        return s;
      } finally {
        progress.stop();
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** A gap seen while running: the difference of that box only. */
  private fillGap(box: string): Promise<void> {
    const run = this.chain.then(async () => {
      if (this.stopped) return;
      try {
        if (box === ACCOUNT_BOX) await this.engine.accountOnly();
        else await this.engine.channelOnly(box);
      } catch (err) {
        this.logger.warn(
          { component: "catch-up", box: box || "account", err: String(err) },
          "filling an update gap failed",
        );
      }
    });
    this.chain = run;
    return run;
  }

  /** What `/status` reports. */
  status(): StatusFacts {
    const now = this.clock.now();
    return {
      name: this.o.persona.name,
      now,
      startedAt: this.startedAt,
      connected: Boolean(this.o.client.connected),
      chats: this.messages.chats().filter((c) => c.chatId !== this.o.selfId),
      settings: this.settings.entries(),
      pendingTasks: this.scheduler
        .openTasks()
        .filter((t) => t.chatId !== this.o.selfId && !isSummaryGraph(t.chatId)).length,
      summaryTasks: this.scheduler.openTasks().filter((t) => isSummaryGraph(t.chatId)).length,
      usage: this.usage.today(now),
      dailyTokenBudget: this.o.persona.policy.dailyTokenBudget,
      strangers: {
        tokens: this.usage.strangerTokensToday(now),
        cap: strangerTokenCap(this.o.persona.policy),
      },
      capped: this.caps.cappedChats(),
      ...(this.lastError ? { lastError: this.lastError } : {}),
      llm: this.llmAvailability(),
      ...(this.o.retention ? { storage: this.storageFacts(this.o.retention) } : {}),
    };
  }

  private storageFacts(r: NonNullable<AgentRuntimeOptions["retention"]>): StatusFacts["storage"] {
    const removed = r.removed(this.o.persona.name);
    const last = r.last;
    return {
      bytes: databaseBytes(this.o.db),
      retainDays: r.retainDays,
      removedMessages: removed.messages,
      removedTasks: removed.tasks,
      ...(last ? { lastPassAt: last.at } : {}),
    };
  }

  /**
   * Whether Gemini answers, as this persona sees it: the models failing now (since when, the last
   * error, the next try, how many plans wait) and the outages that ended. Read-only; for
   * `/status` and a metrics endpoint. Without an LLM (dry runs): nothing is down.
   */
  llmAvailability(): AvailabilitySnapshot {
    return this.o.llm?.availability?.snapshot() ?? { down: [], ended: 0 };
  }

  /** Resume stored tasks, start listening and ticking. */
  start(): void {
    this.startedAt = this.clock.now();
    this.scheduler.load();
    const stopMessages = listenForMessages({
      client: this.o.client,
      feed: this.feed,
      entities: this.entities,
      tracker: this.tracker,
      selfId: this.o.selfId,
      logger: this.logger,
      typing: this.typing,
      reactions: createReactionHandler({
        messages: this.messages,
        reactions: this.reactions,
        logger: this.logger,
      }),
      chatChanged: (chatId) => this.chatReactions.forget(chatId),
      gate: this.writeGate,
    });
    const stopChanges = listenForChanges({
      client: this.o.client,
      changes: this.changes,
      logger: this.logger,
    });
    this.detach = () => {
      stopMessages();
      stopChanges();
    };
    this.scheduler.start();
    this.logger.info({ component: "runtime" }, "agent started");
    if (this.o.catchUpOnStart !== false) {
      this.caughtUp = this.catchUp().catch((err: unknown) => {
        // A revoked session is the account's end, not the catch-up's: the owner reports it.
        const lost = accountLost(err);
        if (lost && this.o.onAccountLost) this.o.onAccountLost(lost);
        else
          this.logger.error(
            { component: "catch-up", err: String(err) },
            "catch-up failed; live updates continue",
          );
        return undefined;
      });
    }
  }

  /**
   * Stop listening, let running tasks finish (at most `graceMs`, real time), keep pending ones in
   * the database. A task still running after the grace period is left as it is in the database
   * ("running"), so the next start resumes it — a send with its stored random_id, which cannot
   * go out twice.
   */
  async stop(o: { graceMs?: number } = {}): Promise<void> {
    this.stopped = true;
    this.detach?.();
    this.detach = undefined;
    // Messages still waiting for a busy database are not stored: their update state was not
    // persisted, so the next start fetches them again.
    this.writeGate.close();
    this.tracker.close();
    this.detachCommitFailure?.();
    // A catch-up in flight finishes what it handed over (bounded: its requests may never return).
    await Promise.race([this.chain, new Promise((r) => setTimeout(r, 2000).unref())]);
    const graceMs = o.graceMs ?? STOP_GRACE_MS;
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      this.scheduler.stop().then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), graceMs))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.scheduler.abandon();
      this.logger.warn(
        { component: "runtime", graceMs },
        "a task was still running at shutdown; it resumes at the next start",
      );
    }
    this.media.stop();
    await Promise.race([this.media.idle(), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.detachUsage?.(); // after the running planning calls recorded their usage
    this.detachUsage = undefined;
    this.messages.commit();
    this.logger.info({ component: "runtime" }, "agent stopped");
  }

  /** The account's connection is down: start no task until `resume()`. */
  pause(): void {
    this.scheduler.pause();
  }

  resume(): void {
    this.scheduler.resume();
  }

  /** Die as a killed process would (for crash tests): nothing more is written. */
  abandon(): void {
    this.stopped = true;
    this.writeGate.close();
    this.detachCommitFailure?.();
    this.media.stop();
    this.tracker.close();
    this.detach?.();
    this.detach = undefined;
    this.detachUsage?.();
    this.detachUsage = undefined;
    this.scheduler.abandon();
  }
}
