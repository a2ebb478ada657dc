/**
 * The ⟦before the upgrade⟧ part of a supergroup's planning request (docs/chat-upgrades.md): a
 * basic group upgraded to a supergroup keeps its history under its old id, so the new chat's
 * requests show the old group's rolling summary (what its lane summaries kept of its older
 * history) and its last messages after it, oldest first, named as earlier history of the same
 * group. Message texts are data, sanitised like every message text (they cannot open or forge a
 * part of the request). Empty when the chat was never a basic group or its old history is empty.
 * Each plan also checks whether the old group's summary is due (its messages between the summary
 * and the last ones shown are folded in by the summariser, off the answer's path).
 */
import { escapeMediaMarkers, neutralizeReferences, sanitizeLine } from "../context/sanitize";
import type { EntityLookup } from "../context/speaker-directory";
import { entityName } from "../store/entities";
import type { MessageStore } from "../store/messages";
import type { SummarySource } from "./plan-context";

const LABEL = "⟦before the upgrade⟧";
/** How many of the old group's last messages are shown. */
const EARLIER_CHAT_MESSAGES = 30;
const MAX_LINE = 400;

const line = (s: string): string => {
  const t = escapeMediaMarkers(neutralizeReferences(sanitizeLine(s)));
  return t.length > MAX_LINE ? `${t.slice(0, MAX_LINE - 1)}…` : t;
};

/** The part for the old group `from` (empty string: nothing to show). */
export function earlierChatPart(
  messages: MessageStore,
  entities: EntityLookup,
  from: string | undefined,
  summaries?: Pick<SummarySource, "forPrompt" | "consider">,
): string {
  if (from === undefined) return "";
  const lane = { kind: "root", chatId: from } as const;
  const summary = summaries?.forPrompt(lane);
  const recent = messages.recent(from, Number.MAX_SAFE_INTEGER, EARLIER_CHAT_MESSAGES);
  // The summary covers the old group up to its toId: only the messages after it are shown.
  const old = summary ? recent.filter((m) => m.messageId > summary.toId) : recent;
  if (recent.length > 0) summaries?.consider(lane, recent.at(-1)!.messageId);
  if (old.length === 0 && !summary) return "";
  // A basic group's update names no sender: the name known now, else the one stored.
  const name = (id: string, stored: string) => {
    const e = entities.get(id);
    return (e ? entityName(e) : undefined) ?? stored;
  };
  const lines = old.map(
    (m) => `${line(m.isAgent ? "you" : name(m.senderId, m.senderName))}: ${line(m.text)}`,
  );
  // The summary's own first line names message ids of the old chat, which mean nothing here.
  const story = summary?.text.split("\n").filter((l, i) => i > 0 || !l.startsWith("[Summary of")) ?? [];
  return [
    `${LABEL} This group was a basic group until it became a supergroup; what happened there before then (history, not new messages; you cannot reply to it):`,
    ...(story.length > 0 ? ["Summary of its earlier history:", ...story] : []),
    ...(lines.length > 0 ? ["Its last messages, oldest first:", ...lines] : []),
  ].join("\n");
}
