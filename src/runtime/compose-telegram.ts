/**
 * Composition, stage 6: Telegram's side of the inbound path — the message feed (parse, store,
 * pipeline; who wrote a short update; the reply fetch) and the catch-up engine with its chain
 * (catch-ups and gap fills one at a time), edits and reaction settings from a difference included.
 */
import { errorMessage } from "../base/error-message";
import type { AgentRuntimeOptions, Stage } from "./agent-options";
import type { Inbound } from "./compose-inbound";
import type { Media } from "./compose-media";
import type { Stores } from "./compose-stores";
import { CatchUpChats } from "../store/catch-up-chats";
import { CatchUp } from "../telegram/inbound/catch-up";
import { applyChange } from "../telegram/inbound/listen-changes";
import { createMessageFeed, type MessageFeed } from "../telegram/inbound/message-feed";
import { REPLY_FETCH_TIMEOUT_MS } from "../telegram/inbound/reply-context";
import { SenderResolver } from "../telegram/inbound/sender-resolver";
import { changedChat } from "../telegram/outbound/chat-reactions";
import { CatchUpChain } from "./catch-up-chain";
import { ChannelMembership } from "./channel-membership";

export interface Telegram {
  readonly feed: MessageFeed;
  /** Catch-ups and gap fills, one at a time. */
  readonly catchUps: CatchUpChain;
}

export function composeTelegram(
  o: AgentRuntimeOptions,
  s: Stage,
  st: Stores,
  m: Media,
  i: Inbound,
): Telegram {
  const { agent, logger } = s;
  const feed = createMessageFeed({
    handler: i.inbound,
    entities: st.entities,
    resolver: new SenderResolver({ client: o.client, entities: st.entities, state: st.updateState, logger }),
    selfId: o.selfId,
    replyTimeoutMs: o.replyTimeoutMs ?? REPLY_FETCH_TIMEOUT_MS,
    logger,
    gate: st.writeGate,
    committed: () => st.messages.committed(),
    dbFile: o.db.name,
    topicTitled: (t) => st.topics.named(t.chatId, t.topicId, t.title, t.messageId),
  });
  const catchUpChats = new CatchUpChats(o.db, agent);
  const membership = new ChannelMembership({ entities: st.entities, tracker: st.tracker, logger });
  st.entities.onMembership((e, gone) => membership.changed(e, gone));
  const engine = new CatchUp({
    client: o.client,
    entities: st.entities,
    state: st.updateState,
    tracker: st.tracker,
    feed,
    highestId: (chatId) => st.messages.highestId(chatId),
    commonChats: () => catchUpChats.commonChats(),
    knownChannels: () => catchUpChats.knownChannels(),
    logger,
    // The summary's duration is real time, whatever clock the runtime runs.
    now: () => performance.now(),
    // Compared with message dates: Telegram's time, not a local clock that may be wrong.
    clockNow: () => s.telegramTime.now(),
    onOtherUpdates: (updates) => {
      for (const u of updates) {
        applyChange(st.changes, u);
        const changed = changedChat(u);
        if (changed !== undefined) m.chatReactions.forget(changed);
      }
    },
    onChannelLost: (chatId, error) => membership.lost(chatId, error),
    onServerTime: (unixSec) => s.telegramTime.stated(unixSec),
  });
  const catchUps = new CatchUpChain({
    engine,
    agent,
    logger,
    onCaughtUp: (summary) => st.activity.caughtUp(summary),
    onFailed: (err) => st.activity.error(`catch-up failed: ${errorMessage(err)}`),
  });
  return { feed, catchUps };
}
