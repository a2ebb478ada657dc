/**
 * People who leave a group, as Telegram tells the account: a messageActionChatDeleteUser service
 * message (posted in basic groups and supergroups below 50 members, or for a bot —
 * docs/telegram-facts.md "People who leave a group"), read from the service message the feed
 * already parsed (no request); and, since none is posted in a group of 50 members or more, one
 * request (channels.getParticipant, or a basic group's messages.getFullChat) through the read calls (bounded in time, held back by a flood wait) — asked only when an intention of that
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
  /** The service message's id (a message of theirs after it was written after they came back). */
  readonly messageId?: number;
}

/** The departure a service message tells of (messageActionChatDeleteUser), or undefined. */
export function parseDeparture(m: Api.MessageService): Departure | undefined {
  const a = m.action;
  if (!(a instanceof Api.MessageActionChatDeleteUser)) return undefined;
  const userId = String(a.userId);
  const from = m.fromId instanceof Api.PeerUser ? String(m.fromId.userId) : undefined;
  return {
    chatId: utils.getPeerId(m.peerId),
    userId,
    how: from === userId ? "left" : "removed",
    messageId: m.id,
  };
}

/** What Telegram said of a member: still in, gone, or it could not say (and why). */
export type Membership = { readonly member: boolean } | { readonly unsure: string };

/**
 * Whether `userId` is still a member of the group `chatId`, asked of Telegram once: a basic
 * group's member list (messages.getFullChat), or a supergroup's channels.getParticipant — gone on USER_NOT_PARTICIPANT or a participant that left or is
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
  if (!chatId.startsWith("-100")) return inBasicGroup(reads, chatId, userId);
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

/** A basic group's members are listed in its full chat (messages.getFullChat; at most 200). */
async function inBasicGroup(reads: ReadCalls, chatId: string, userId: string): Promise<Membership> {
  try {
    const r = await reads.invoke(new Api.messages.GetFullChat({ chatId: returnBigInt(chatId.slice(1)) }));
    const list = r.fullChat instanceof Api.ChatFull ? r.fullChat.participants : undefined;
    if (!(list instanceof Api.ChatParticipants)) return { unsure: "the member list is hidden" };
    return { member: list.participants.some((p) => String(p.userId) === userId) };
  } catch (e) {
    return { unsure: e instanceof Error ? e.message : String(e) };
  }
}
