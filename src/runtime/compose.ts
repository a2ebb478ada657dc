/**
 * The composition root of one persona: every part of an {@link AgentRuntime} built from its
 * options and wired to each other, stage by stage — stores (compose-stores.ts), policy
 * (compose-policy.ts), media (compose-media.ts), tasks (compose-tasks.ts), inbound
 * (compose-inbound.ts) and Telegram (compose-telegram.ts). Nothing here runs: starting, stopping
 * and the connection's life are the runtime's (agent-runtime.ts).
 */
import { composeMeaning } from "./compose-meaning";
import type { MemoryMeaning } from "../memory/meaning";
import type { Logger } from "pino";
import type { MessageChangeHandler } from "../inbound/changes";
import type { InboundHandler } from "../inbound/pipeline";
import type { ImplicitAddressing } from "../inbound/addressing-implicit";
import type { Reception } from "../inbound/reception";
import type { Caps } from "../policy/caps";
import type { Gate } from "../policy/gate";
import type { ChatSettingsStore } from "../store/chat-settings";
import type { EntityStore } from "../store/entities";
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
import type { AccountHealth } from "../telegram/outbound/account-health";
import type { Intentions } from "../life/intentions";
import type { IntentionStore } from "../store/intentions";
import type { Presence } from "../life/presence";
import type { ChatReactions } from "../telegram/outbound/chat-reactions";
import type { OwnVoice } from "../telegram/outbound/own-voice";
import type { MessageFeed } from "../telegram/inbound/message-feed";
import type { TypingWatch } from "../telegram/inbound/typing-watch";
import type { UpdateTracker } from "../telegram/inbound/update-tracker";
import type { MediaDescriber } from "../media/describer";
import type { ImageSource } from "../media/inline-images";
import type { Clock } from "../base/types";
import { systemClock } from "../base/clock";
import { DayWatch } from "../config/persona-rhythm";
import type { CatchUpChain } from "./catch-up-chain";
import type { AgentRuntimeOptions, Late, Stage } from "./agent-options";
import { composeInbound } from "./compose-inbound";
import { composeMedia } from "./compose-media";
import { composePolicy } from "./compose-policy";
import { composeStores } from "./compose-stores";
import { composeTasks } from "./compose-tasks";
import { composeTelegram } from "./compose-telegram";
import { watchStorage } from "./storage-watch";
import { TelegramTime } from "../telegram/connection/telegram-time";
import type { ChannelWatch } from "../telegram/inbound/channel-watch";
import type { RuntimeStatus } from "./status-facts";
import type { Activity } from "./activity";

/** The parts of one persona's runtime, wired to each other (see {@link composeAgent}). */
export interface AgentParts {
  readonly logger: Logger;
  /** The persona's day (`# Sleep`, `# Busy`): changed when its file is edited while running. */
  readonly day: DayWatch;
  readonly clock: Clock;
  readonly messages: MessageStore;
  readonly chats: ChatStore;
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
  readonly ownVoice: OwnVoice;
  readonly summaries: SummaryStore;
  readonly laneSummaries: LaneSummaries;
  readonly addressing: ImplicitAddressing;
  readonly scheduler: Scheduler;
  /** Telegram's restrictions of the account (frozen, PEER_FLOOD). */
  readonly accountHealth: AccountHealth;
  /** The persona's own intentions (life/intentions.ts) and their rows. */
  readonly intentions: Intentions;
  readonly intentionStore: IntentionStore;
  readonly presence: Presence;
  readonly inbound: InboundHandler;
  readonly feed: MessageFeed;
  /** Catch-ups and gap fills, one at a time. */
  readonly catchUps: CatchUpChain;
  /** Polls of the big groups the persona is active in, and of channels silent for long. */
  readonly watch: ChannelWatch;
  /** The facts `/status` reports (its start time and last error). */
  readonly status: RuntimeStatus;
  /** What the persona did lately (the operator console's "now" view). */
  readonly activity: Activity;
  /** Run an owner command (the text typed in Saved Messages) and return its answer. */
  readonly command: (text: string) => string;
  /** How her unasked remarks are received per group. */
  readonly reception: Reception;
  /**
   * Stop watching the database's writes (memory rolled back when one fails; the episode's log
   * lines), and stop reporting her held voice notes to the metrics.
   */
  readonly detachStorageWatch: () => void;
  /** Stop recording LLM usage (absent: the LLM reports none). */
  readonly detachUsage: (() => void) | undefined;
  /** Memory by meaning's background embedding (absent: no embedder). */
  readonly meaning?: MemoryMeaning;
}

/**
 * Build one persona's runtime parts from its options. Stages refer to later parts through
 * {@link Late}'s getters, so the order below is the order of construction, not of use.
 */
export function composeAgent(o: AgentRuntimeOptions): AgentParts {
  const agent = o.persona.name;
  const clock = o.clock ?? systemClock;
  const logger = o.logger.child({ agent });
  const s: Stage = {
    agent,
    clock,
    logger,
    readDelayMs: o.persona.readDelaySec * 1000,
    quietMs: o.persona.quietWindowSec * 1000,
    telegramTime: o.telegramTime ?? new TelegramTime({ clock, logger }),
    day: new DayWatch(o.persona.rhythm, o.persona.timeZone),
  };
  const built: {
    scheduler?: Scheduler;
    catchUps?: CatchUpChain;
    accountHealth?: AccountHealth;
    meaning?: MemoryMeaning;
  } = {};
  const late: Late = {
    scheduler: () => built.scheduler!,
    catchUps: () => built.catchUps!,
    accountHealth: () => built.accountHealth!,
    meaning: () => built.meaning,
  };
  const stores = composeStores(o, s, late);
  const policy = composePolicy(o, s, stores, late);
  const media = composeMedia(o, s, stores, policy);
  const meaning = composeMeaning(o, s, stores, policy);
  built.meaning = meaning;
  const tasks = composeTasks(o, s, stores, policy, { ...media, ...(meaning ? { meaning } : {}) }, late);
  const inbound = composeInbound(o, s, stores, policy, tasks);
  const telegram = composeTelegram(o, s, stores, media, inbound, tasks);
  built.scheduler = tasks.scheduler;
  built.accountHealth = tasks.accountHealth;
  built.catchUps = telegram.catchUps;
  return {
    logger: s.logger,
    day: s.day,
    clock: s.clock,
    messages: stores.messages,
    chats: stores.chats,
    changes: stores.changes,
    memories: stores.memories,
    reactions: stores.reactions,
    entities: stores.entities,
    updateState: stores.updateState,
    tracker: stores.tracker,
    usage: stores.usage,
    settings: stores.settings,
    caps: policy.caps,
    gate: policy.gate,
    writeGate: stores.writeGate,
    typing: tasks.typing,
    images: media.images,
    media: media.media,
    chatReactions: media.chatReactions,
    ownVoice: media.ownVoice,
    summaries: stores.summaries,
    laneSummaries: tasks.laneSummaries,
    addressing: tasks.addressing,
    scheduler: tasks.scheduler,
    accountHealth: tasks.accountHealth,
    intentions: tasks.intentions,
    intentionStore: tasks.intentionStore,
    presence: tasks.presence,
    inbound: inbound.inbound,
    feed: telegram.feed,
    catchUps: telegram.catchUps,
    watch: telegram.watch,
    status: policy.status,
    activity: stores.activity,
    reception: stores.reception,
    command: inbound.command,
    detachStorageWatch: detachBoth(
      tasks.unwatchVoice,
      watchStorage({
        db: o.db,
        agent,
        clock: s.clock,
        logger: s.logger,
        updateState: stores.updateState,
        entities: stores.entities,
        chats: stores.chats,
        tracker: stores.tracker,
        gate: stores.writeGate,
        scheduler: late.scheduler,
      }),
    ),
    detachUsage: policy.detachUsage,
    ...(meaning ? { meaning } : {}),
  };
}

/** Both watches stopped at once (the runtime stops its watches in one call). */
function detachBoth(a: () => void, b: () => void): () => void {
  return () => {
    a();
    b();
  };
}
