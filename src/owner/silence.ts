/**
 * Takeover silence: the persona says nothing in a chat until a moment — set when the owner writes
 * there from another device, or from the operator console for N minutes. Pending work there
 * (addressing calls included) is dropped; a longer silence already set is kept.
 */
import type { ChatSettingsStore } from "../store/chat-settings";
import type { Scheduler } from "../tasks/scheduler";
import type { Task } from "../tasks/task";

export function silenceChat(
  d: { readonly settings: ChatSettingsStore; readonly scheduler: Pick<Scheduler, "cancelPending"> },
  chatId: string,
  until: number,
  reason: string,
): Task[] {
  const dropped = d.scheduler.cancelPending(chatId, reason, { addressing: true });
  const previous = d.settings.get(chatId).silentUntil ?? 0;
  d.settings.update(chatId, { silentUntil: Math.max(previous, until) });
  return dropped;
}

/** End a takeover silence now (the operator console's "End silence"); a pause stays as it is. */
export function endSilence(d: { readonly settings: ChatSettingsStore }, chatId: string): void {
  if (d.settings.get(chatId).silentUntil !== undefined) d.settings.update(chatId, { silentUntil: undefined });
}
