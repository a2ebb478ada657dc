/**
 * Following a basic group's upgrade to a supergroup (docs/chat-upgrades.md): the move is recorded
 * (store/chat-moves.ts — pending intentions carried over with it), and the owner's settings for
 * the old chat (pause, mode, a takeover's silence) are merged into the new one's: paused if either
 * is, the new chat's mode if it has one, the later silence — at every sighting, so a crash between
 * the two writes loses nothing.
 */
import type { Logger } from "pino";
import type { ChatMoves } from "../store/chat-moves";
import type { ChatSettingsStore } from "../store/chat-settings";

export function followChatMove(
  s: { readonly moves: ChatMoves; readonly settings: ChatSettingsStore; readonly logger: Logger },
  move: { readonly from: string; readonly to: string },
  now: number,
): void {
  const first = s.moves.record(move.from, move.to, now);
  // The owner's settings, merged field by field on every sighting of the move (a crash between
  // the move and this write, or a replay, still carries them): paused if either chat is, the new
  // chat's mode else the old one's, the later silence.
  const old = s.settings.get(move.from);
  const own = s.settings.get(move.to);
  const merged = {
    paused: old.paused || own.paused,
    ...((own.mode ?? old.mode) !== undefined ? { mode: own.mode ?? old.mode } : {}),
    ...(old.silentUntil !== undefined || own.silentUntil !== undefined
      ? { silentUntil: Math.max(old.silentUntil ?? 0, own.silentUntil ?? 0) }
      : {}),
  };
  if (
    merged.paused !== own.paused ||
    merged.mode !== own.mode ||
    (merged.silentUntil ?? undefined) !== own.silentUntil
  )
    s.settings.update(move.to, merged);
  if (first)
    s.logger.info(
      { component: "inbound", from: move.from, to: move.to },
      "group upgraded to a supergroup: followed",
    );
}
