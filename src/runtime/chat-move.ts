/**
 * Following a basic group's upgrade to a supergroup (docs/chat-upgrades.md): the move is recorded
 * (store/chat-moves.ts — pending intentions carried over with it), and the owner's settings for
 * the old chat (pause, mode, a takeover's silence) hold in the new one unless it has its own.
 */
import type { Logger } from "pino";
import type { ChatMoves } from "../store/chat-moves";
import type { ChatSettingsStore } from "../store/chat-settings";

export function followChatMove(
  s: { readonly moves: ChatMoves; readonly settings: ChatSettingsStore; readonly logger: Logger },
  move: { readonly from: string; readonly to: string },
  now: number,
): void {
  if (!s.moves.record(move.from, move.to, now)) return;
  const old = s.settings.get(move.from);
  const own = s.settings.get(move.to);
  const set = (x: typeof old) => x.paused || x.mode !== undefined || x.silentUntil !== undefined;
  if (set(old) && !set(own)) s.settings.update(move.to, old);
  s.logger.info(
    { component: "inbound", from: move.from, to: move.to },
    "group upgraded to a supergroup: followed",
  );
}
