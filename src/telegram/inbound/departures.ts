/**
 * People who leave a group, as Telegram tells the account: a messageActionChatDeleteUser service
 * message (a basic group always posts one; a supergroup usually does, a big one need not —
 * docs/telegram-facts.md "People who leave a group"), read from the service message the feed
 * already parsed (no request); and, when it is not sure, one channels.getParticipant through the
 * read calls (bounded in time, held back by a flood wait) — asked only when an intention of that
 * person falls due there, never per message.
 */
import { Api, errors, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { EntityStore } from "../../store/entities";
import { inputChannelOf, inputPeerOf } from "../entities";
import type { ReadCalls } from "./read-calls";

/** Someone left a group or was removed from it. */
export interface Departure {
  readonly chatId: string;
  readonly userId: string;
  /** "left": the member's own service message; "removed": someone else's (an admin). */
  readonly how: "left" | "removed";
}

/** The departure a service message tells of (messageActionChatDeleteUser), or undefined. */
export function parseDeparture(m: Api.MessageService): Departure | undefined {
  const a = m.action;
  if (!(a instanceof Api.MessageActionChatDeleteUser)) return undefined;
  const userId = String(a.userId);
  const from = m.fromId instanceof Api.PeerUser ? String(m.fromId.userId) : undefined;
  return { chatId: utils.getPeerId(m.peerId), userId, how: from === userId ? "left" : "removed" };
}

/** What Telegram said of a member: still in, gone, or it could not say (and why). */
export type Membership = { readonly member: boolean } | { readonly unsure: string };

/**
 * Whether `userId` is still a member of the supergroup `chatId`, asked of Telegram once
 * (channels.getParticipant): gone on USER_NOT_PARTICIPANT or a participant that left or is
 * banned (channelParticipantLeft, channelParticipantBanned — what an admin is answered), a
 * member otherwise; unsure when it cannot say (no access hash, a timeout, a flood pause, another
 * error). `msgId`: one of the person's messages there, to address them when their access hash is
 * not known (inputPeerUserFromMessage).
 */
export async function stillMember(
  reads: ReadCalls,
  entities: EntityStore,
  chatId: string,
  userId: string,
  msgId?: number,
): Promise<Membership> {
  const channel = inputChannelOf(entities.get(chatId));
  const channelPeer = inputPeerOf(entities.get(chatId));
  if (!channel || !channelPeer) return { unsure: "the group cannot be addressed" };
  const participant =
    inputPeerOf(entities.get(userId)) ??
    (msgId !== undefined
      ? new Api.InputPeerUserFromMessage({ peer: channelPeer, msgId, userId: returnBigInt(userId) })
      : undefined);
  if (!participant) return { unsure: "the person cannot be addressed" };
  try {
    const r = await reads.invoke(new Api.channels.GetParticipant({ channel, participant }));
    const p = r.participant;
    const gone =
      p instanceof Api.ChannelParticipantLeft ||
      (p instanceof Api.ChannelParticipantBanned && p.left === true);
    return { member: !gone };
  } catch (e) {
    if (e instanceof errors.RPCError && e.errorMessage === "USER_NOT_PARTICIPANT") return { member: false };
    return { unsure: e instanceof Error ? e.message : String(e) };
  }
}
