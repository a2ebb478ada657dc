/**
 * Composition, stage 5: the inbound pipeline — each stored message addressed or not, admitted or
 * refused, enqueued for planning or for an addressing call; the persona's and the owner's own
 * messages (own sends, Saved Messages commands, takeover).
 */
import { liveAddressMatcher } from "../inbound/addressing-live";
import type { AgentRuntimeOptions, Stage } from "./agent-options";
import type { Policy } from "./compose-policy";
import type { Stores } from "./compose-stores";
import type { Tasks } from "./compose-tasks";
import { createInboundPipeline, MAX_ANSWER_AGE_MS, type InboundHandler } from "../inbound/pipeline";
import { metrics } from "../metrics/metrics";
import { runOwnerCommand } from "../owner/commands";
import { createOutgoingHandler } from "../owner/outgoing";
import { entityName } from "../store/entities";
import { standInSenders } from "../store/stand-in-senders";

export interface Inbound {
  readonly inbound: InboundHandler;
  /** Run an owner command (the text typed in Saved Messages) and return its answer. */
  readonly command: (text: string) => string;
}

export function composeInbound(o: AgentRuntimeOptions, s: Stage, st: Stores, p: Policy, t: Tasks): Inbound {
  const { agent, clock, logger } = s;
  const addressed = metrics.messagesAddressed.labels({ agent });
  addressed.inc(0);
  /** An owner command (Saved Messages, or the operator console): its answer. */
  const command = (text: string): string =>
    runOwnerCommand(text, {
      selfId: o.selfId,
      chats: st.chats,
      movedAway: (chatId) => st.moves.successor(chatId) !== undefined,
      settings: st.settings,
      scheduler: t.scheduler,
      status: () => p.status.facts(),
      memories: st.memories,
      nameOf: (userId) => {
        const e = st.entities.get(userId);
        return e ? entityName(e) : undefined;
      },
      intentions: { engine: t.intentions, store: t.intentionStore, timeZone: o.persona.timeZone },
      reception: st.reception,
    });
  const inbound = createInboundPipeline({
    messages: st.messages,
    chats: st.chats,
    names: liveAddressMatcher(o.persona), // follows an edited persona file
    logger,
    enqueue: (chatId, messageId, a) => {
      t.addressing.notePartner(chatId, a.senderId);
      t.active.note(chatId);
      t.scheduler.enqueueReceived(chatId, messageId, {
        readDelayMs: s.readDelayMs,
        quietMs: s.quietMs,
        ...a,
      });
    },
    attachReply: (chatId, messageId, reply) => t.scheduler.attachReply(chatId, messageId, reply),
    maxAnswerAgeMs: o.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS,
    standIns: new Set(standInSenders(o.db, agent).map((r) => `${r.chatId}\u0000${r.senderId}`)),
    now: () => s.telegramTime.now(),
    dated: (dateMs) => s.telegramTime.dated(dateMs),
    lookedAt: (date) => s.day.lookedAt(date),
    admit: (m) => p.gate.message(m),
    refused: (m, reason) => {
      st.refusals.record(m.chatId, m.messageId, reason, clock.now());
      st.activity.refused(m.chatId, m.messageId, reason);
    },
    // Asleep, the persona overhears nothing (a mention still waits for its waking).
    implicit: (m, name) => {
      if (!s.day.asleep(clock.now())) t.addressing.consider(m, name);
    },
    heard: (m) => st.reception.heard(m),
    stored: metrics.messagesStored.of(agent),
    onAddressed: () => addressed.inc(),
    outgoing: createOutgoingHandler({
      selfId: o.selfId,
      name: o.persona.name,
      takeoverSilenceMs: o.persona.policy.takeoverSilenceMin * 60_000,
      messages: st.messages,
      chats: st.chats,
      own: t.own,
      settings: st.settings,
      scheduler: t.scheduler,
      clock,
      logger,
      command,
    }),
  });
  return { inbound, command };
}
