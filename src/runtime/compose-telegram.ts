/**
 * Composition, stage 6: Telegram's side of the inbound path — the read calls (every catch-up,
 * resolver and reply-fetch request bounded in time and held back by flood waits), the message
 * feed (parse, store, pipeline; who wrote a short update; the reply fetch), the catch-up engine
 * with its chain (catch-ups and gap fills one at a time; edits and reaction settings from a
 * difference included), and the channel watch (polls of active big groups and silent channels).
 */
import { errorMessage } from "../base/error-message";
import type { AgentRuntimeOptions, Stage } from "./agent-options";
import type { Inbound } from "./compose-inbound";
import type { Media } from "./compose-media";
import type { Stores } from "./compose-stores";
import type { Tasks } from "./compose-tasks";
import { MAX_ANSWER_AGE_MS } from "../inbound/pipeline";
import { CatchUpChats } from "../store/catch-up-chats";
import { CatchUp, catchable } from "../telegram/inbound/catch-up";
import { ChannelWatch } from "../telegram/inbound/channel-watch";
import { applyChange } from "../telegram/inbound/listen-changes";
import { stillMember } from "../telegram/inbound/departures";
import { createMessageFeed, type MessageFeed } from "../telegram/inbound/message-feed";
import { ReadCalls } from "../telegram/inbound/read-calls";
import { REPLY_FETCH_TIMEOUT_MS } from "../telegram/inbound/reply-context";
import { SenderResolver } from "../telegram/inbound/sender-resolver";
import { changedChat } from "../telegram/outbound/chat-reactions";
import { CatchUpChain } from "./catch-up-chain";
import { followChatMove } from "./chat-move";
import { ChannelMembership } from "./channel-membership";

export interface Telegram {
  readonly feed: MessageFeed;
  /** Catch-ups and gap fills, one at a time. */
  readonly catchUps: CatchUpChain;
  /** Polls of the big groups the persona is active in, and of channels silent for long. */
  readonly watch: ChannelWatch;
}

export function composeTelegram(
  o: AgentRuntimeOptions,
  s: Stage,
  st: Stores,
  m: Media,
  i: Inbound,
  t: Tasks,
): Telegram {
  const { agent, clock, logger } = s;
  const reads = new ReadCalls({
    client: o.client,
    limits: t.limits,
    clock,
    logger,
    agent,
    ...(o.requestTimeoutMs !== undefined ? { timeoutMs: o.requestTimeoutMs } : {}),
  });
  // Following a basic group's upgrade: either migrate service message, or the old chat's object.
  const follow = (x: { readonly from: string; readonly to: string }) =>
    followChatMove(
      { moves: st.moves, settings: st.settings, logger, reception: st.reception },
      x,
      clock.now(),
    );
  const feed = createMessageFeed({
    handler: i.inbound,
    entities: st.entities,
    resolver: new SenderResolver({ reads, entities: st.entities, state: st.updateState, logger }),
    selfId: o.selfId,
    replyTimeoutMs: o.replyTimeoutMs ?? REPLY_FETCH_TIMEOUT_MS,
    reads,
    logger,
    gate: st.writeGate,
    committed: () => st.messages.committed(),
    dbFile: o.db.name,
    topicTitled: (x) => st.topics.named(x.chatId, x.topicId, x.title, x.messageId),
    topicClosed: (x) => st.topics.closedBy(x.chatId, x.topicId, x.closed, x.messageId),
    memberLeft: (x) => t.intentions.left(x.chatId, x.userId, x.how, x.messageId),
    chatMoved: follow,
  });
  // A supergroup's due intention asks once whether its asker is still there (life/intentions.ts).
  t.intentions.checkMembersWith((chatId, userId, msgId) =>
    stillMember(reads, st.entities, chatId, userId, msgId),
  );
  const catchUpChats = new CatchUpChats(o.db, agent);
  const membership = new ChannelMembership({ entities: st.entities, tracker: st.tracker, logger });
  st.entities.onMembership((e, gone) => membership.changed(e, gone));
  // A move seen only from the old group's deactivated chat object (migrated_to) is followed too.
  st.entities.onMoved((from, to) => follow({ from, to }));
  const engine = new CatchUp({
    client: o.client,
    reads,
    entities: st.entities,
    state: st.updateState,
    tracker: st.tracker,
    feed,
    highestId: (chatId) => st.messages.highestId(chatId),
    commonChats: () => catchUpChats.commonChats(),
    logger,
    // The summary's duration is real time, whatever clock the runtime runs.
    now: () => performance.now(),
    clockNow: () => clock.now(),
    // Compared with message dates: Telegram's time, not a local clock that may be wrong.
    telegramNow: () => s.telegramTime.now(),
    maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
    onOtherUpdates: (updates) => {
      for (const u of updates) {
        applyChange(st.changes, u);
        const changed = changedChat(u);
        if (changed !== undefined) m.chatReactions.forget(changed);
      }
    },
    onChannelLost: (chatId, error) => membership.lost(chatId, error),
    onChannelFetched: (chatId, timeoutSec) => watch.fetched(chatId, timeoutSec),
    onServerTime: (unixSec) => s.telegramTime.stated(unixSec),
  });
  const catchUps = new CatchUpChain({
    engine,
    agent,
    logger,
    dbFile: o.db.name,
    onCaughtUp: (summary) => st.activity.caughtUp(summary),
    onFailed: (err) => st.activity.error(`catch-up failed: ${errorMessage(err)}`),
  });
  const watch: ChannelWatch = new ChannelWatch({
    clock,
    tracker: st.tracker,
    followed: () =>
      st.tracker
        .knownChannels()
        .filter((c) => st.tracker.localPts(c) !== undefined && catchable(st.entities, c)),
    active: () => t.active.list().filter((c) => catchable(st.entities, c)),
    fetch: (chatId) => catchUps.fillGap(chatId),
    paused: () => reads.pausedUntil("updates.GetChannelDifference") > 0,
    logger,
  });
  return { feed, catchUps, watch };
}
