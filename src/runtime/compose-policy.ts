/**
 * Composition, stage 2: the admission gate with its caps and fair shares, what `/status` reports,
 * and the recording of every LLM call's usage (tokens, cost, metrics).
 */
import type { AgentRuntimeOptions, Late, Stage } from "./agent-options";
import type { Stores } from "./compose-stores";
import { Caps } from "../policy/caps";
import { Gate } from "../policy/gate";
import { SendCeiling } from "../policy/send-ceiling";
import { metrics, watchSends } from "../metrics/metrics";
import { RuntimeStatus } from "./status-facts";
import type { Task } from "../tasks/task";
import type { LlmUsage } from "../llm/types";
import { LookupRules } from "../policy/lookup-rules";
import { LookupCountStore } from "../store/lookups";

/**
 * The person an LLM task is for: the sender of the newest message a planning round plans for,
 * or of the newest one an addressing call judges (its usage is recorded for that person too);
 * for a send or sticker, of the newest message it answers (the account ceiling's trust).
 */
function personOf(t: Task, senderOf: (messageId: number) => string | undefined): string | undefined {
  if (t.kind === "look_up") return (t as Task<"look_up">).payload.userId;
  const ids =
    t.kind === "received"
      ? (t as Task<"received">).payload.items.map((i) => i.messageId)
      : t.kind === "address"
        ? (t as Task<"address">).payload.items
        : t.kind === "send" || t.kind === "sticker"
          ? ((t as Task<"send" | "sticker">).payload.answers ?? [])
          : [];
  return ids.length > 0 ? senderOf(Math.max(...ids)) : undefined;
}

export interface Policy {
  readonly caps: Caps;
  readonly gate: Gate;
  /** The account-wide ceiling on messages sent per hour (told of every message that went out). */
  readonly ceiling: SendCeiling;
  /** The facts `/status` reports (its start time and last error). */
  readonly status: RuntimeStatus;
  /** Stop recording LLM usage (absent: the LLM reports none). */
  readonly detachUsage: (() => void) | undefined;
  /** Who may make the persona look things up, and the day's look-up caps. */
  readonly lookupRules: LookupRules;
}

export function composePolicy(o: AgentRuntimeOptions, s: Stage, st: Stores, late: Late): Policy {
  const { agent, clock, logger } = s;
  const caps = new Caps({ counts: st.counts, policy: o.persona.policy, usage: st.usage, clock, logger });
  const ceiling = new SendCeiling(clock);
  const gate = new Gate({
    ceiling,
    wroteIn: (chatId) => st.messages.wroteIn(chatId),
    policy: o.persona.policy,
    selfId: o.selfId,
    siblings: o.siblings ?? new Set(),
    settings: st.settings,
    successorOf: (chatId) => st.moves.successor(chatId),
    predecessorOf: (chatId) => st.moves.predecessor(chatId),
    caps,
    clock,
    logger,
    isContact: (userId) => st.entities.get(userId)?.contact,
    usernameOf: (userId) => st.entities.get(userId)?.username,
    chatOf: (chatId) => st.chats.get(chatId),
    membersOf: (chatId) => st.entities.get(chatId)?.members,
    authorsOf: (chatId) => st.messages.authorsOf(chatId, 200),
    personOf: (t) => personOf(t, (id) => st.messages.get(t.chatId, id)?.senderId),
  });
  const status = new RuntimeStatus({
    persona: o.persona,
    selfId: o.selfId,
    db: o.db,
    client: o.client,
    chats: st.chats,
    settings: st.settings,
    scheduler: late.scheduler,
    usage: st.usage,
    caps,
    llm: o.llm,
    retention: o.retention,
    clock,
    restrictions: () => late.accountHealth().restrictions(),
    meaning: () => late.meaning?.(),
    sends: () => ceiling.snapshot(),
    reception: () => st.reception.report(),
  });
  const record = (u: LlmUsage): void => {
    // A stranger's DM (or a stranger on strangers' ground) is counted in their own share too.
    const cost = st.usage.record(u, clock.now(), {
      stranger: u.chatId !== undefined && gate.isStrangerCall(u.chatId, u.userId),
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
  };
  const detachLlm = (o.llm ?? o.planner).onUsage?.(record);
  // Look-ups are priced and counted like every call (their per-request fee on top).
  const detachLookups = o.lookups?.onUsage(record);
  // Embeddings too (purpose "embed": memory/meaning.ts).
  const detachEmbed = o.embedder?.onUsage(record);
  // Speech (her voice notes) too, under the purpose `speech`.
  const detachSpeech = o.speech?.onUsage(record);
  const detachUsage =
    detachLlm || detachLookups || detachEmbed || detachSpeech
      ? () => {
          detachLlm?.();
          detachLookups?.();
          detachEmbed?.();
          detachSpeech?.();
        }
      : undefined;
  const lookupRules = new LookupRules({
    policy: () => o.persona.lookUps,
    gate,
    counts: new LookupCountStore(o.db, agent),
    usernameOf: (chatId) => st.chats.get(chatId)?.username ?? st.entities.get(chatId)?.username,
    predecessorOf: (chatId) => st.moves.predecessor(chatId),
    clock,
    logger,
  });
  const unwatchSends = watchSends(agent, () => ceiling.snapshot());
  return {
    caps,
    gate,
    ceiling,
    status,
    lookupRules,
    detachUsage: () => {
      unwatchSends();
      detachUsage?.();
    },
  };
}
