import type { Logger } from "pino";
import { createReactionHandler } from "../inbound/reactions";
import type { Reception } from "../inbound/reception";
import type { ImplicitAddressing } from "../inbound/addressing-implicit";
import type { MessageChangeHandler } from "../inbound/changes";
import type { InboundHandler } from "../inbound/pipeline";
import type { AvailabilitySnapshot } from "../llm/availability";
import type { Llm } from "../llm/llm";
import type { MediaDescriber } from "../media/describer";
import type { ImageSource } from "../media/inline-images";
import type { StatusFacts } from "../owner/status";
import type { Caps } from "../policy/caps";
import type { Gate } from "../policy/gate";
import type { ChatSettingsStore } from "../store/chat-settings";
import type { EntityStore } from "../store/entities";
import type { MeaningStatus, MemoryMeaning } from "../memory/meaning";
import type { MemoryStore } from "../store/memories";
import type { MessageStore } from "../store/messages";
import type { ChatStore } from "../store/chats";
import type { ReactionStore } from "../store/reactions";
import type { SummaryStore } from "../store/summaries";
import type { UpdateStateStore } from "../store/update-state";
import type { UsageStore } from "../store/usage";
import type { WriteGate } from "../store/write-gate";
import type { LaneSummaries } from "../summary/lane-summaries";
import type { Scheduler } from "../tasks/scheduler";
import type { Intentions } from "../life/intentions";
import type { IntentionStore } from "../store/intentions";
import type { Presence } from "../life/presence";
import { accountLost } from "../telegram/connection/account-errors";
import type { CatchUpSummary } from "../telegram/inbound/catch-up";
import type { ChatReactions } from "../telegram/outbound/chat-reactions";
import type { OwnVoice } from "../telegram/outbound/own-voice";
import { listenForMessages } from "../telegram/inbound/listen";
import { listenForBlocks } from "../telegram/inbound/listen-blocks";
import { listenForChanges } from "../telegram/inbound/listen-changes";
import type { MessageFeed } from "../telegram/inbound/message-feed";
import type { TypingWatch } from "../telegram/inbound/typing-watch";
import type { UpdateTracker } from "../telegram/inbound/update-tracker";
import { systemClock } from "../base/clock";
import type { CatchUpChain } from "./catch-up-chain";
import type { ChannelWatch } from "../telegram/inbound/channel-watch";
import type { AgentRuntimeOptions } from "./agent-options";
import { composeAgent } from "./compose";
import { sayStopping } from "./storage-watch";
import { applyPersonaChange, type PersonaChange } from "./persona-update";
import type { Persona } from "../config/persona";
import type { DayWatch } from "../config/persona-rhythm";
import { mustWait } from "../store/db";
import { holdProcessOpen } from "./shutdown";
import type { RuntimeStatus } from "./status-facts";
import { onTimeout, withTimeout } from "../base/timeout";
import type { Activity } from "./activity";
import type { AccountHealth } from "../telegram/outbound/account-health";

export type { AgentRuntimeOptions, MediaRuntimeOptions } from "./agent-options";

/** How long `stop()` waits for running tasks (a send in flight) by default. */
const STOP_GRACE_MS = 10_000;

/**
 * One persona on one account: the inbound pipeline fed by the account's updates, and the
 * scheduler running its task graphs against the account. State is in `db` only, so a new
 * runtime on the same database picks up where a dead one stopped. Its parts are built by
 * compose.ts; this class is their life cycle: start, stop, a dropped connection, a crash.
 */
export class AgentRuntime {
  readonly messages: MessageStore;
  /** The chats the persona has seen (type, title, access hash). */
  readonly chats: ChatStore;
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
  /** Telegram's restrictions of the account (frozen, PEER_FLOOD): /readyz, /status, the console. */
  readonly accountHealth: AccountHealth;
  /** The persona's own intentions: set by plans, fired when due (life/intentions.ts). */
  readonly intentions: Intentions;
  readonly intentionStore: IntentionStore;
  /** The account's online status: online while the persona reads and answers (life/presence.ts). */
  readonly presence: Presence;
  readonly inbound: InboundHandler;
  readonly entities: EntityStore;
  readonly updateState: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly feed: MessageFeed;
  /** Other people's typing, from Telegram's typing updates: a due burst waits while its author types. */
  readonly typing: TypingWatch;
  /** The catch-up started by `start()` (resolves when it finished; never rejects). */
  caughtUp: Promise<CatchUpSummary | undefined> = Promise.resolve(undefined);
  /** Catch-ups and gap fills, one at a time. */
  private readonly catchUps: CatchUpChain;
  /** Polls of the big groups the persona is active in, and of channels silent for long. */
  private readonly watch: ChannelWatch;
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
  /** How her unasked remarks are received per group (the owner's /status, /reception, the console). */
  readonly reception: Reception;
  private detach: (() => void) | undefined;
  private detachUsage: (() => void) | undefined;
  /** Memory by meaning's background embedding (memory/meaning.ts); absent: no embedder. */
  private readonly meaning: MemoryMeaning | undefined;
  private detachStorageWatch: (() => void) | undefined;
  /** What `/status` reports (start time, last error). */
  private readonly statusFacts: RuntimeStatus;
  /** What the persona did lately: plans, sends, refusals, caps, catch-ups, errors (the console's "now" view). */
  readonly activity: Activity;
  private readonly logger: Logger;
  /** The media description chain (curated → cache → budget → AI). */
  readonly media: MediaDescriber;
  /** Pictures sent inline with planning requests (the addressed photo). */
  readonly images: ImageSource;
  /** What each chat allows to react with (cached; forgotten when Telegram says the chat changed). */
  readonly chatReactions: ChatReactions;
  /** Her voice notes fetched back from Telegram on demand, for the console to play (never stored). */
  readonly ownVoice: OwnVoice;
  /** Inbound work waiting (in order) while another process holds the database's write lock. */
  readonly writeGate: WriteGate;

  private readonly o: AgentRuntimeOptions;

  /**
   * The running persona: the parts read its fields when they use them, so an edited persona
   * file (updatePersona) changes what they do from then on. A copy of the parsed (frozen) one.
   */
  readonly persona: Persona;

  constructor(options: AgentRuntimeOptions) {
    this.persona = { ...options.persona };
    const o = (this.o = { ...options, persona: this.persona });
    const p = composeAgent(o);
    this.logger = p.logger;
    this.llm = o.llm;
    this.messages = p.messages;
    this.chats = p.chats;
    this.changes = p.changes;
    this.memories = p.memories;
    this.reactions = p.reactions;
    this.entities = p.entities;
    this.updateState = p.updateState;
    this.tracker = p.tracker;
    this.usage = p.usage;
    this.settings = p.settings;
    this.caps = p.caps;
    this.gate = p.gate;
    this.writeGate = p.writeGate;
    this.typing = p.typing;
    this.images = p.images;
    this.media = p.media;
    this.chatReactions = p.chatReactions;
    this.ownVoice = p.ownVoice;
    this.summaries = p.summaries;
    this.laneSummaries = p.laneSummaries;
    this.addressing = p.addressing;
    this.reception = p.reception;
    this.scheduler = p.scheduler;
    this.accountHealth = p.accountHealth;
    this.intentions = p.intentions;
    this.intentionStore = p.intentionStore;
    this.presence = p.presence;
    this.inbound = p.inbound;
    this.feed = p.feed;
    this.catchUps = p.catchUps;
    this.watch = p.watch;
    this.statusFacts = p.status;
    this.activity = p.activity;
    this.command = p.command;
    this.detachStorageWatch = p.detachStorageWatch;
    this.detachUsage = p.detachUsage;
    this.meaning = p.meaning;
    this.day = p.day;
  }

  private readonly day: DayWatch;

  /**
   * The persona file was edited while running and reads as valid: what may change live applies
   * from now on; the rest is named (runtime/persona-update.ts).
   */
  updatePersona(next: Persona): PersonaChange {
    return applyPersonaChange(this.o.persona, next, this.day);
  }

  /** The catch-up (or gap fill) in flight, or the last one (settled). */
  private get chain(): Promise<unknown> {
    return this.catchUps.settled;
  }

  /**
   * Fetch what was missed — on start, after a reconnect, or whenever the caller knows the
   * connection was dead — and hand it to the inbound pipeline. Runs one at a time; resolves with
   * what it did (also logged as one line).
   */
  catchUp(): Promise<CatchUpSummary> {
    return this.catchUps.catchUp();
  }

  /** The account's user id. */
  get selfId(): string {
    return this.o.selfId;
  }

  /** Run an owner command as if typed in Saved Messages (the operator console's actions); its answer. */
  readonly command: (text: string) => string;

  /** What `/status` reports. */
  status(): StatusFacts {
    return this.statusFacts.facts();
  }

  /** How far recall by meaning's background embedding is (`/status`'s line, the console's Memory page); undefined: no embedder. */
  meaningStatus(): MeaningStatus | undefined {
    return this.meaning?.status();
  }

  /**
   * Whether Gemini answers, as this persona sees it: the models failing now (since when, the last
   * error, the next try, how many plans wait) and the outages that ended. Read-only; for
   * `/status` and a metrics endpoint. Without an LLM (dry runs): nothing is down.
   */
  llmAvailability(): AvailabilitySnapshot {
    return this.statusFacts.llmAvailability();
  }

  /** Resume stored tasks, start listening and ticking. */
  start(): void {
    this.statusFacts.started();
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
        reacted: (chatId, date, emoji) => this.reception.reacted(chatId, date, emoji),
      }),
      chatChanged: (chatId) => this.chatReactions.forget(chatId),
      gate: this.writeGate,
      dbFile: this.o.db.name,
    });
    const stopChanges = listenForChanges({
      client: this.o.client,
      changes: this.changes,
      logger: this.logger,
      dbFile: this.o.db.name,
    });
    // The owner blocking or unblocking someone in another app (intentions follow the blocklist).
    const stopBlocks = listenForBlocks({
      client: this.o.client,
      changed: (userId, blocked) =>
        blocked ? this.intentions.blocked(userId) : this.intentions.unblocked(userId),
      logger: this.logger,
    });
    this.detach = () => {
      stopMessages();
      stopChanges();
      stopBlocks();
    };
    this.scheduler.start();
    this.watch.start();
    // A freeze met before a restart (its limit is stored) is reported again, with Telegram's dates.
    this.accountHealth.start();
    // After the open tasks are back: a due intention joins (or starts) its chat's planning task.
    this.intentions.start();
    this.meaning?.start();
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
    this.watch.stop();
    this.intentions.stop();
    this.catchUps.stop();
    this.detach?.();
    this.detach = undefined;
    // Messages still waiting for a busy database are not stored: their update state was not
    // persisted, so the next start fetches them again (said once, naming the file).
    sayStopping({ db: this.o.db, gate: this.writeGate, logger: this.logger });
    this.writeGate.close();
    this.tracker.close();
    this.detachStorageWatch?.();
    // The waits below are bounded in real time (systemClock: a fake clock must not hold up a stop).
    // A catch-up in flight finishes what it handed over (bounded: its requests may never return).
    await withTimeout(this.chain, 2000, "catch-up", systemClock).catch(onTimeout(undefined));
    const graceMs = o.graceMs ?? STOP_GRACE_MS;
    const releaseProcess = holdProcessOpen(); // the process stays up for the grace period
    const finished = await withTimeout(
      this.scheduler.stop().then(() => true),
      graceMs,
      "running tasks",
      systemClock,
    )
      .catch(onTimeout(false))
      .finally(releaseProcess);
    if (!finished) {
      this.scheduler.abandon();
      this.logger.warn(
        { component: "runtime", graceMs },
        "a task was still running at shutdown; it resumes at the next start",
      );
    }
    this.media.stop();
    this.meaning?.stop();
    // The app closes: offline now (the request is bounded; a dead link just lets Telegram's expiry do it).
    await withTimeout(this.presence.stop(), 2000, "offline status", systemClock).catch(onTimeout(undefined));
    await withTimeout(this.media.idle(), 2000, "media descriptions", systemClock).catch(onTimeout(undefined));
    this.detachUsage?.(); // after the running planning calls recorded their usage
    this.detachUsage = undefined;
    try {
      this.messages.commit();
    } catch (e) {
      // A full disk at the stop: rolled back with the update state that covers it (fetched again at the next start).
      if (!mustWait(e)) throw e;
    }
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
    this.watch.stop();
    this.intentions.stop();
    this.presence.abandon();
    this.catchUps.stop();
    this.writeGate.close();
    this.detachStorageWatch?.();
    this.media.stop();
    this.meaning?.stop();
    this.tracker.close();
    this.detach?.();
    this.detach = undefined;
    this.detachUsage?.();
    this.detachUsage = undefined;
    this.scheduler.abandon();
  }
}
