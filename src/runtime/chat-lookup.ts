import type { EntityStore } from "../store/entities";
import type { ChatInfo, ChatStore } from "../store/chats";

/**
 * A chat's type and access hash, for a request to it: the chats table, else the entity store
 * (a chat seen only in an update's users and chats).
 */
export function chatLookup(
  chats: Pick<ChatStore, "get">,
  entities: Pick<EntityStore, "get">,
): (chatId: string) => ChatInfo | undefined {
  return (chatId) => {
    const c = chats.get(chatId);
    if (c?.accessHash !== undefined || c?.chatType === "group") return c;
    const e = entities.get(chatId);
    if (!e) return c;
    const chatType = c?.chatType ?? (e.kind === "user" ? "dm" : e.kind === "chat" ? "group" : "supergroup");
    return {
      chatId,
      chatType,
      ...(c?.title !== undefined ? { title: c.title } : {}),
      ...(e.accessHash !== undefined && !e.min ? { accessHash: e.accessHash } : {}),
    };
  };
}
