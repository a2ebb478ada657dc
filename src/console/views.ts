/**
 * What the console's API answers: plain JSON built from the store's console queries and the
 * runtime's own read-outs. Nothing secret goes in (no session, key, hash, code or password),
 * and media descriptors lose their file references.
 */
import type { Persona } from "../config/persona";
import { personaConnection } from "../http/readiness";
import type { AgentRuntime } from "../runtime/agent-runtime";
import { ALL_CHATS } from "../store/chat-settings";
import type { Db } from "../store/db";
import type { ConsoleQueries } from "../store/console-queries";
import { formatSpan, rhythmAt } from "../config/persona-rhythm";
import { formatLocal } from "../base/zoned-time";

/** One persona the console shows. */
export interface ConsoleSource {
  readonly persona: Persona;
  readonly runtime: AgentRuntime;
  readonly queries: ConsoleQueries;
  /** Its database (the store's writers the console acts through are built on it). */
  readonly db: Db;
  /** The agents folder its curated files live in (agents/<Name>/media, agents/media, agents/<Name>/memory). */
  readonly agentsDir: string;
}

const DAY_MS = 86_400_000;

/** What the console calls the account's own chat, where the owner's commands and their replies are. */
export const SAVED_MESSAGES = "Saved Messages (owner)";

/** A chat's name as the console shows it: the account's own chat is Saved Messages; else its title, if known. */
export function chatTitle(s: ConsoleSource, chatId: string): string | null {
  if (chatId === s.runtime.selfId) return SAVED_MESSAGES;
  return s.runtime.chats.get(chatId)?.title ?? null;
}
const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The personas page: one entry per persona. */
export function personaView(s: ConsoleSource, now: number) {
  const st = s.runtime.status();
  const self = s.runtime.entities.get(s.runtime.selfId);
  const all = s.runtime.settings.get(ALL_CHATS);
  const chats = new Map(st.chats.map((c) => [c.chatId, c]));
  return {
    name: s.persona.name,
    account: {
      id: s.runtime.selfId,
      username: self?.username ?? null,
      name: [self?.firstName, self?.lastName].filter(Boolean).join(" ") || null,
    },
    connection: connectionView(s, st.connected),
    restrictions: restrictionsView(s, now),
    paused: all.paused,
    mode: all.mode ?? s.persona.groupMode,
    modeIsDefault: all.mode === undefined,
    chats: s.runtime.settings
      .entries()
      .filter(([id]) => id !== ALL_CHATS)
      .map(([id, cs]) => ({
        chatId: id,
        title: chats.get(id)?.title ?? null,
        paused: cs.paused,
        mode: cs.mode ?? null,
        silentUntil: cs.silentUntil !== undefined && cs.silentUntil > now ? cs.silentUntil : null,
      })),
    pendingTasks: st.pendingTasks,
    today: {
      day: utcDay(now),
      // Replies to the owner's commands in Saved Messages are no answers to anyone.
      answers: s.queries.answersSince(s.persona.name, now - (now % DAY_MS), s.runtime.selfId),
      purposes: s.queries.costs.purposesOn(s.persona.name, utcDay(now)),
      totalTokens: st.usage.totalTokens,
      costUsd: st.usage.costUsd,
      /** Per provider when more than Gemini served (owner/provider-costs.ts); null: Gemini only. */
      costByProvider: st.costByProvider ?? null,
      dailyTokenBudget: st.dailyTokenBudget,
    },
    capped: st.capped.map((c) => ({ chatId: c.chatId, cap: c.cap, at: c.at })),
    /** The last task that failed for good (as `/status` says it) and the last errors of the activity feed. */
    lastError: st.lastError ?? null,
    errors: s.runtime.activity.lastErrors().slice(0, 5),
    gemini: geminiView(s),
    day: dayView(s, now),
  };
}

/**
 * The persona's day as the console shows it: its local time, what it is doing now and until when
 * (awake, busy and how slow, asleep), its `# Sleep` and `# Busy`, and whether its account says it
 * is online.
 */
export function dayView(s: ConsoleSource, now: number) {
  const p = s.persona;
  const tz = p.timeZone;
  const state = rhythmAt(p.rhythm, tz, now);
  return {
    timeZone: tz,
    local: formatLocal(now, tz),
    state: state.state,
    level: state.level ?? null,
    until: state.until ?? null,
    untilLocal: state.until !== undefined ? formatLocal(state.until, tz) : null,
    sleep: p.rhythm.sleep ? formatSpan(p.rhythm.sleep) : null,
    busy: p.rhythm.busy.map((b) => `${formatSpan(b)} ${b.level}`),
    online: s.runtime.presence.isOnline,
  };
}

/**
 * Telegram's connection as `/readyz` says it (the persona's registered state and its reason), or,
 * for a persona not registered there, from the runtime's own flag.
 */
export function connectionView(s: ConsoleSource, connected: boolean) {
  const conn = personaConnection(s.persona.name);
  return conn
    ? { state: conn.state, reason: conn.reason ?? null }
    : { state: connected ? "connected" : "reconnecting", reason: null };
}

/** Telegram's restrictions of the account (frozen, PEER_FLOOD), each in one line; empty: none. */
export function restrictionsView(s: ConsoleSource, now: number) {
  return s.runtime.accountHealth.restrictions(now).map((r) => ({ kind: r.kind, summary: r.summary }));
}

/** Gemini as this persona sees it: the models failing now (since, error, next try, plans waiting), or up. */
export function geminiView(s: ConsoleSource) {
  const a = s.runtime.llmAvailability();
  return {
    keyless: s.runtime.llm === undefined || s.runtime.llm.availability === undefined,
    down: a.down.map((d) => ({ ...d })),
    ended: a.ended,
    lastEnded: a.lastEnded ?? null,
  };
}

/** The conversations list of a persona. */
export function chatsView(s: ConsoleSource, limit: number) {
  return s.queries.chats(s.persona.name, limit).filter((c) => c.chatId !== s.runtime.selfId);
}
