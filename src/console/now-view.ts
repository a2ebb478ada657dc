/**
 * The console's Now view: what one persona is doing now — open tasks per chat with their timers,
 * Telegram's and Gemini's state, the last errors and the activity feed.
 */
import { ALL_CHATS } from "../store/chat-settings";
import { isSummaryGraph, type Task } from "../tasks/task";
import { taskWhat } from "../tasks/task-text";
import {
  chatTitle,
  connectionView,
  dayView,
  geminiView,
  restrictionsView,
  type ConsoleSource,
} from "./views";
import type { Intention } from "../store/intentions";
import { formatLocal } from "../base/zoned-time";

/** Most pending intentions the now view lists (soonest first), and ended ones. */
const INTENTIONS_SHOWN = 50;
const ENDED_SHOWN = 20;

/** One intention as the now view shows it. */
function intentionView(i: Intention, tz: string, now: number, title: (chatId: string) => string | null) {
  return {
    id: i.id,
    chatId: i.chatId,
    title: title(i.chatId),
    note: i.note,
    state: i.state,
    /** Why it is held, skipped, missed, cancelled or refused. */
    reason: i.reason ?? null,
    dueAt: i.dueAt,
    dueLocal: formatLocal(i.dueAt, tz),
    /** When it is looked at next (pending): its due time, or later while held. */
    notBefore: i.notBefore,
    inSec: Math.max(0, Math.round((i.notBefore - now) / 1000)),
    setAt: i.setAt,
    /** The message being answered when it was set (a link to it). */
    inReplyTo: i.inReplyTo ?? null,
    spoke: i.spoke,
    firedAt: i.firedAt ?? null,
  };
}

/** What one open task shows on the "now" view. */
function openTaskView(t: Task) {
  const p = t.payload as unknown as Record<string, unknown>;
  const until = typeof p.until === "number" ? p.until : null;
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    what: taskWhat(t.kind, t.payload),
    /** When it may start (ms); a retry's or a limit's wait shows here. */
    notBefore: t.notBefore,
    /** A wait or typing spell under way: when it ends. */
    until,
    /**
     * Its next moment (ms, the server's clock): the end of its spell, else when it may start. The
     * page counts down to it once a second from the view's `now` (the server's clock).
     */
    due: until ?? t.notBefore,
    attempts: t.attempts,
    error: t.error ?? null,
    inDoubt: t.inDoubt === true,
    dependsOn: [...t.dependsOn],
    planId: t.planId ?? null,
  };
}

/**
 * The "now" view of a persona: what it is doing (its open tasks per chat with their timers),
 * Telegram's and Gemini's state, the last errors and the live activity. Reads memory only (the
 * scheduler's open tasks, the activity ring), plus the chat titles and the plans' numbers.
 */
export function nowView(s: ConsoleSource, now: number) {
  const st = s.runtime.status();
  const open = s.runtime.scheduler.openTasks();
  const byChat = new Map<string, Task[]>();
  for (const t of open) byChat.set(t.chatId, [...(byChat.get(t.chatId) ?? []), t]);
  const planNos = s.queries.planNumbers([
    ...new Set(open.map((t) => t.planId).filter((x): x is number => x !== undefined)),
  ]);
  const title = (chatId: string) => chatTitle(s, chatId);
  const activity = s.runtime.activity.recent(200);
  const tz = s.persona.timeZone;
  const own = s.runtime.intentionStore.open(INTENTIONS_SHOWN);
  return {
    name: s.persona.name,
    /** The server's clock when the view was made: the page's timers count from it. */
    now,
    connection: connectionView(s, st.connected),
    restrictions: restrictionsView(s, now),
    paused: s.runtime.settings.get(ALL_CHATS).paused,
    gemini: geminiView(s),
    lastError: st.lastError ?? null,
    errors: s.runtime.activity.lastErrors(),
    day: dayView(s, now),
    /** The persona's own intentions: pending ones soonest first (how many in all), and the last that ended. */
    intentions: {
      total: own.total,
      pending: own.list.map((i) => intentionView(i, tz, now, title)),
      ended: s.runtime.intentionStore.recentEnded(ENDED_SHOWN).map((i) => intentionView(i, tz, now, title)),
    },
    chats: [...byChat].map(([chatId, tasks]) => {
      const summary = isSummaryGraph(chatId);
      return {
        chatId,
        /** A lane summary's own graph (no chat page of its own). */
        summary,
        title: summary ? null : title(chatId),
        tasks: tasks.map((t) => {
          const v = openTaskView(t);
          return { ...v, planNo: v.planId !== null ? (planNos.get(v.planId) ?? null) : null };
        }),
      };
    }),
    activity: activity.map((e) => ({
      ...e,
      chatTitle: e.chatId !== undefined ? title(e.chatId) : null,
    })),
  };
}
