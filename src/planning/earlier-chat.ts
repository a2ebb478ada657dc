/**
 * The ⟦before the upgrade⟧ part of a supergroup's planning request (docs/chat-upgrades.md): a
 * basic group upgraded to a supergroup keeps its history under its old id, so the new chat's
 * requests show the old group's last messages, oldest first, named as earlier history of the same
 * group. Message texts are data, sanitised like every message text (they cannot open or forge a
 * part of the request). Empty when the chat was never a basic group or its old history is empty.
 */
import { escapeMediaMarkers, neutralizeReferences, sanitizeLine } from "../context/sanitize";
import type { EntityLookup } from "../context/speaker-directory";
import { entityName } from "../store/entities";
import type { MessageStore } from "../store/messages";

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
): string {
  if (from === undefined) return "";
  const old = messages.recent(from, Number.MAX_SAFE_INTEGER, EARLIER_CHAT_MESSAGES);
  if (old.length === 0) return "";
  // A basic group's update names no sender: the name known now, else the one stored.
  const name = (id: string, stored: string) => {
    const e = entities.get(id);
    return (e ? entityName(e) : undefined) ?? stored;
  };
  const lines = old.map(
    (m) => `${line(m.isAgent ? "you" : name(m.senderId, m.senderName))}: ${line(m.text)}`,
  );
  return [
    `${LABEL} This group was a basic group until it became a supergroup; its last messages from before then, oldest first (history, not new messages; you cannot reply to them):`,
    ...lines,
  ].join("\n");
}
