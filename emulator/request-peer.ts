/**
 * Which chat a request is about, for faults armed per peer (`emu.faults.failNext(…, { peer })`,
 * `floodWait(…, { peer })`, `hang(…, { peer })`): the channel of an InputChannel or
 * InputPeerChannel, the basic group of an InputPeerChat, the user of an InputPeerUser /
 * InputUser, or the chat an InputUserFromMessage / InputPeerUserFromMessage names.
 */
import { Api } from "telegram";
import { fromLong } from "./long";
import type { EmuChat, EmuUser } from "./types";

/** The raw ids (channel, basic group or user) the request names; empty when it names none. */
function idsOf(request: Api.AnyRequest): number[] {
  const r = request as { channel?: unknown; peer?: unknown; id?: unknown; username?: unknown };
  const ids: number[] = [];
  const add = (p: unknown): void => {
    if (p instanceof Api.InputChannel || p instanceof Api.InputPeerChannel) ids.push(fromLong(p.channelId));
    else if (p instanceof Api.InputPeerChat) ids.push(fromLong(p.chatId));
    else if (p instanceof Api.InputPeerUser || p instanceof Api.InputUser) ids.push(fromLong(p.userId));
    else if (p instanceof Api.InputUserFromMessage || p instanceof Api.InputPeerUserFromMessage) add(p.peer);
  };
  add(r.channel);
  add(r.peer);
  if (Array.isArray(r.id)) for (const x of r.id as unknown[]) add(x);
  return ids;
}

/**
 * True when `request` is about `peer`: a supergroup or basic group it names, a user it names
 * (for a DM, the chat's `id` is the other user's), or, for `contacts.ResolveUsername`, the user
 * whose username it asks for.
 */
export function requestIsAbout(request: Api.AnyRequest, peer: EmuChat | EmuUser): boolean {
  const username = (request as { username?: unknown }).username;
  if (typeof username === "string")
    return "username" in peer && peer.username?.toLowerCase() === username.toLowerCase();
  return idsOf(request).includes(peer.id);
}
