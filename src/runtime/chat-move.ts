/**
 * Following a basic group's upgrade to a supergroup (docs/chat-upgrades.md): the move is recorded
 * (store/chat-moves.ts — pending intentions carried over with it), and the owner's settings for
 * the old chat (pause, mode, a takeover's silence) are merged into the new one's: paused if either
 * is, the new chat's mode if it has one, the later silence. How her remarks were received there
 * (inbound/reception.ts) is copied to the new chat when it has no verdict of its own. Both happen
 * before the move is recorded, so a crash between the writes leaves the move unrecorded and the
 * next sighting does it all again; once recorded, later sightings (the old chat's object comes with
 * every dialogs page) change nothing, so the owner's `/resume` of the supergroup holds.
 */
import type { Logger } from "pino";
import type { ChatMoves } from "../store/chat-moves";
import type { ChatSettingsStore } from "../store/chat-settings";
import type { Reception } from "../inbound/reception";

export function followChatMove(
  s: {
    readonly moves: ChatMoves;
    readonly settings: ChatSettingsStore;
    readonly logger: Logger;
    /** How her remarks were received in the old group ("stop", ignored) carries over too. */
    readonly reception?: Pick<Reception, "followed">;
  },
  move: { readonly from: string; readonly to: string },
  now: number,
): void {
  if (s.moves.successor(move.from) !== undefined) return;
  // The owner's settings, merged field by field: paused if either chat is, the new chat's mode
  // else the old one's, the later silence.
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
  s.reception?.followed(move.from, move.to);
  if (s.moves.record(move.from, move.to, now))
    s.logger.info(
      { component: "inbound", from: move.from, to: move.to },
      "group upgraded to a supergroup: followed",
    );
}
