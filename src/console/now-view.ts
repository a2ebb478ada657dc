/**
 * The console's Now view: what one persona is doing now — open tasks per chat with their timers,
 * Telegram's and Gemini's state, the last errors and the activity feed.
 */
import { personaConnection } from "../http/readiness";
import { ALL_CHATS } from "../store/chat-settings";
import { isSummaryGraph, type Task } from "../tasks/task";
import { geminiView, type ConsoleSource } from "./views";

/** What one open task shows on the "now" view. */
function openTaskView(t: Task, now: number) {
  const p = t.payload as unknown as Record<string, unknown>;
  const until = typeof p.until === "number" ? p.until : null;
  const what =
    t.kind === "send"
      ? String(p.text ?? "")
      : t.kind === "react"
        ? `${String(p.emoji ?? "")} on #${String(p.messageId ?? "")}`
        : t.kind === "wait"
          ? `${String(p.seconds ?? "")} s`
          : t.kind === "typing"
            ? `${String(p.action ?? "typing")} ${String(p.seconds ?? "")} s`
            : t.kind === "received" || t.kind === "address"
              ? `for ${((p.items as unknown[] | undefined) ?? [])
                  .map(
                    (i) => `#${typeof i === "number" ? i : String((i as { messageId?: number }).messageId)}`,
                  )
                  .join(", ")}`
              : t.kind === "sticker"
                ? `${String(p.set ?? "")} ${String(p.name ?? "")}`
                : t.kind === "remember"
                  ? String(p.content ?? "")
                  : "";
  return {
    id: t.id,
    kind: t.kind,
    status: t.status,
    what,
    /** When it may start (ms); a retry's or a limit's wait shows here. */
    notBefore: t.notBefore,
    /** A wait or typing spell under way: when it ends. */
    until,
    /** Seconds to its next moment (start, or the end of its spell); 0: due now. */
    inSec: Math.max(0, Math.round(((until ?? t.notBefore) - now) / 1000)),
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
  const conn = personaConnection(s.persona.name);
  const open = s.runtime.scheduler.openTasks();
  const byChat = new Map<string, Task[]>();
  for (const t of open) byChat.set(t.chatId, [...(byChat.get(t.chatId) ?? []), t]);
  const planNos = s.queries.planNumbers([
    ...new Set(open.map((t) => t.planId).filter((x): x is number => x !== undefined)),
  ]);
  const title = (chatId: string) => s.runtime.chats.get(chatId)?.title ?? null;
  const activity = s.runtime.activity.recent(200);
  return {
    name: s.persona.name,
    now,
    connection: conn
      ? { state: conn.state, reason: conn.reason ?? null }
      : { state: st.connected ? "connected" : "reconnecting", reason: null },
    paused: s.runtime.settings.get(ALL_CHATS).paused,
    gemini: geminiView(s),
    lastError: st.lastError ?? null,
    errors: s.runtime.activity.lastErrors(),
    chats: [...byChat].map(([chatId, tasks]) => {
      const summary = isSummaryGraph(chatId);
      return {
        chatId,
        /** A lane summary's own graph (no chat page of its own). */
        summary,
        title: summary ? null : title(chatId),
        tasks: tasks.map((t) => {
          const v = openTaskView(t, now);
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
