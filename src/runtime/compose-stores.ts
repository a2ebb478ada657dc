/**
 * Composition, stage 1: the persona's stores over the shared database and the update tracker that
 * moves the stored update state (what rolls memory back when a write fails: runtime/storage-watch.ts).
 */
import type { AgentRuntimeOptions, Late, Stage } from "./agent-options";
import { createChangeHandler, type MessageChangeHandler } from "../inbound/changes";
import { AnswerCounts } from "../store/answer-counts";
import { ChatMoves } from "../store/chat-moves";
import { ChatSettingsStore } from "../store/chat-settings";
import { writeFailures } from "../store/db";
import { EntityStore } from "../store/entities";
import { MemoryStore } from "../store/memories";
import { MessageStore } from "../store/messages";
import { ChatStore } from "../store/chats";
import { ReactionStore } from "../store/reactions";
import { ReceptionStore } from "../store/reception";
import { Reception } from "../inbound/reception";
import { RefusalStore } from "../store/refusals";
import { SummaryStore } from "../store/summaries";
import { TopicStore } from "../store/topics";
import { UpdateStateStore } from "../store/update-state";
import { UsageStore } from "../store/usage";
import { WriteGate } from "../store/write-gate";
import { DEFAULT_PRICES } from "../llm/prices";
import { UpdateTracker } from "../telegram/inbound/update-tracker";
import { TaskStore } from "../tasks/task-store";
import { Activity } from "./activity";

/** The activity feed, starting from the newest finished tasks in the database (after a restart). */
function startedActivity(tasks: TaskStore, s: Stage): Activity {
  const activity = new Activity(() => s.clock.now());
  activity.seed(tasks.recentFinished(100));
  return activity;
}

export interface Stores {
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  /** Edits and deletions, live or from a catch-up's difference. */
  readonly changes: MessageChangeHandler;
  readonly memories: MemoryStore;
  readonly reactions: ReactionStore;
  readonly entities: EntityStore;
  readonly updateState: UpdateStateStore;
  readonly tracker: UpdateTracker;
  readonly counts: AnswerCounts;
  readonly usage: UsageStore;
  readonly settings: ChatSettingsStore;
  readonly summaries: SummaryStore;
  readonly refusals: RefusalStore;
  readonly topics: TopicStore;
  /** Basic groups upgraded to supergroups: where each moved (docs/chat-upgrades.md). */
  readonly moves: ChatMoves;
  readonly writeGate: WriteGate;
  /** The task table (the scheduler's store; the activity feed is seeded from it). */
  readonly tasks: TaskStore;
  /** What the persona did lately (the operator console's "now" view), started from the database. */
  readonly activity: Activity;
  /** How her unasked remarks are received per group (inbound/reception.ts). */
  readonly reception: Reception;
}

export function composeStores(o: AgentRuntimeOptions, s: Stage, late: Late): Stores {
  const { agent, clock, logger } = s;
  const messages = new MessageStore(o.db, agent);
  const chats = new ChatStore(o.db, agent);
  const updateState = new UpdateStateStore(o.db, agent);
  const entities = new EntityStore(o.db, agent);
  const tasks = new TaskStore(o.db, agent);
  const tracker = new UpdateTracker({
    state: updateState,
    clock,
    logger,
    onGap: (box) => void late.catchUps().fillGap(box),
  });
  const moves = new ChatMoves(o.db, agent);
  const earlier = (chatId: string) => moves.predecessor(chatId);
  return {
    messages,
    chats,
    changes: createChangeHandler({ messages, logger }),
    memories: new MemoryStore(o.db, agent),
    reactions: new ReactionStore(o.db, agent),
    entities,
    updateState,
    tracker,
    // A supergroup's caps count what was answered and spent in its basic group too (docs/chat-upgrades.md).
    counts: new AnswerCounts(o.db, agent, earlier),
    usage: new UsageStore(o.db, agent, o.prices ?? DEFAULT_PRICES, earlier),
    settings: new ChatSettingsStore(o.db, agent),
    summaries: new SummaryStore(o.db, agent),
    refusals: new RefusalStore(o.db, agent),
    topics: new TopicStore(o.db, agent),
    moves,
    writeGate: new WriteGate({ clock, logger, file: o.db.name, failures: () => writeFailures(o.db) }),
    tasks,
    activity: startedActivity(tasks, s),
    reception: new Reception({
      store: new ReceptionStore(o.db, agent),
      messages,
      clock,
      name: o.persona.name,
    }),
  };
}
