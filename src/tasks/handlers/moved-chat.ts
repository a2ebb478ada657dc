import type { ActionHandlerDeps } from "./action-deps";

/**
 * Where a task's action goes now: a basic group upgraded to a supergroup takes no more messages
 * (docs/chat-upgrades.md), so an action planned there goes to its successor — without a reply
 * target, since the old group's messages are not in the supergroup.
 */
export function whereNow(
  d: ActionHandlerDeps,
  chatId: string,
): { readonly chatId: string; readonly moved: boolean } {
  const to = d.movedTo?.(chatId);
  return to === undefined ? { chatId, moved: false } : { chatId: to, moved: true };
}
