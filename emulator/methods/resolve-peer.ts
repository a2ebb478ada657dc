/*
 * Parameters are `unknown` on purpose: GramJS types request fields as "entity-like" (strings,
 * ids, entities) because invoke() resolves them to TL input objects before sending; by the time
 * a request reaches the server only the TL input classes remain, which these narrow with
 * instanceof. Anything else is an invalid peer, as it would be on the wire.
 */
/**
 * Input peers → server records, with the errors Telegram gives for unknown chats, wrong access
 * hashes and chats the account is not in.
 */
import { Api } from "telegram";
import { fromLong } from "../long";
import { RpcFault } from "../rpc-fault";
import type { ChatRecord } from "../stored-message";
import type { EmuUser } from "../types";
import type { World } from "../world";

/** Reads may touch a chat the account can see; writes need membership (CHAT_WRITE_FORBIDDEN). */
export type Access = "read" | "write";

/** The chat an InputPeer names, checked for existence, access hash and membership. */
export function chatForInputPeer(world: World, account: EmuUser, peer: unknown, access: Access): ChatRecord {
  if (peer instanceof Api.InputPeerSelf) return world.dmRecord(account, account);
  if (peer instanceof Api.InputPeerUserFromMessage) {
    const user = userFromMessage(world, account, peer.peer, peer.msgId, fromLong(peer.userId));
    if (!user) throw new RpcFault("PEER_ID_INVALID");
    return world.dmRecord(account, user);
  }
  if (peer instanceof Api.InputPeerUser) {
    const user = world.user(fromLong(peer.userId));
    if (!user || fromLong(peer.accessHash) !== user.accessHash) throw new RpcFault("PEER_ID_INVALID");
    // Their account was deleted: nothing more reaches them (telegram-facts.md).
    if (access === "write" && world.deletedUsers.has(user.id)) throw new RpcFault("INPUT_USER_DEACTIVATED");
    return world.dmRecord(account, user);
  }
  if (peer instanceof Api.InputPeerChat) {
    const rec = world.group(fromLong(peer.chatId));
    if (!rec) throw new RpcFault("PEER_ID_INVALID");
    // Upgraded to a supergroup: the deactivated group takes no more messages (telegram-facts.md).
    if (rec.migratedTo && access === "write") throw new RpcFault("PEER_ID_INVALID");
    if (!rec.members.has(account.id)) {
      throw access === "write" ? new RpcFault("CHAT_WRITE_FORBIDDEN", 403) : new RpcFault("PEER_ID_INVALID");
    }
    return rec;
  }
  if (peer instanceof Api.InputPeerChannel) {
    return channelRecord(world, account, fromLong(peer.channelId), fromLong(peer.accessHash));
  }
  throw new RpcFault("PEER_ID_INVALID");
}

/** The supergroup an InputChannel names (CHANNEL_INVALID / CHANNEL_PRIVATE like Telegram). */
export function chatForInputChannel(world: World, account: EmuUser, channel: unknown): ChatRecord {
  if (channel instanceof Api.InputChannel) {
    return channelRecord(world, account, fromLong(channel.channelId), fromLong(channel.accessHash));
  }
  throw new RpcFault("CHANNEL_INVALID");
}

/** The user an InputUser names, or undefined when unknown or the access hash is wrong. */
export function userForInputUser(world: World, account: EmuUser, input: unknown): EmuUser | undefined {
  if (input instanceof Api.InputUserSelf) return account;
  if (input instanceof Api.InputUserFromMessage)
    return userFromMessage(world, account, input.peer, input.msgId, fromLong(input.userId));
  if (input instanceof Api.InputUser) {
    const user = world.user(fromLong(input.userId));
    return user && user.accessHash === fromLong(input.accessHash) ? user : undefined;
  }
  return undefined;
}

/** The user an InputPeer names (contacts.Block and friends), or undefined. */
export function userForInputPeer(world: World, account: EmuUser, peer: unknown): EmuUser | undefined {
  if (peer instanceof Api.InputPeerSelf) return account;
  if (peer instanceof Api.InputPeerUserFromMessage)
    return userFromMessage(world, account, peer.peer, peer.msgId, fromLong(peer.userId));
  if (peer instanceof Api.InputPeerUser) {
    const user = world.user(fromLong(peer.userId));
    return user && user.accessHash === fromLong(peer.accessHash) ? user : undefined;
  }
  return undefined;
}

/**
 * A user addressed through a message the account can see (InputUserFromMessage /
 * InputPeerUserFromMessage): how a client reaches a `min` user it has no access hash for. Valid
 * when that message exists in that chat and was sent by the user.
 */
function userFromMessage(
  world: World,
  account: EmuUser,
  chatPeer: unknown,
  msgId: number,
  userId: number,
): EmuUser | undefined {
  let rec: ChatRecord;
  try {
    rec = chatForInputPeer(world, account, chatPeer, "read");
  } catch {
    return undefined;
  }
  const msg = world.findInChat(rec, msgId, account);
  if (!msg || msg.deleted || msg.fromId !== userId || msg.senderChat) return undefined;
  return world.user(userId);
}

/** A message id field (typed "MessageIDLike" by GramJS, always an int on the wire). */
export function asMessageId(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "object" && v !== null && typeof (v as { id?: unknown }).id === "number")
    return (v as { id: number }).id;
  throw new RpcFault("MESSAGE_ID_INVALID");
}

function channelRecord(world: World, account: EmuUser, channelId: number, accessHash: number): ChatRecord {
  const rec = world.channel(channelId);
  if (!rec || rec.chat.accessHash !== accessHash) throw new RpcFault("CHANNEL_INVALID");
  if (!rec.members.has(account.id)) throw new RpcFault("CHANNEL_PRIVATE");
  return rec;
}
