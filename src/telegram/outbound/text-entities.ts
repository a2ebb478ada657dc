/**
 * Formatting entities as Telegram takes them: the plan's Markdown, parsed into plain text and
 * platform-free entities (base/text-format.ts), becomes the `entities` of messages.SendMessage —
 * so the chat shows bold, italic, code and links, never the markers. Offsets are UTF-16 code
 * units on both sides.
 */
import { Api } from "telegram";
import type { FormatEntity } from "../../base/text-format";

/** One entity as GramJS's TL object. */
function apiEntity(e: FormatEntity): Api.TypeMessageEntity {
  const at = { offset: e.offset, length: e.length };
  switch (e.kind) {
    case "bold":
      return new Api.MessageEntityBold(at);
    case "italic":
      return new Api.MessageEntityItalic(at);
    case "strike":
      return new Api.MessageEntityStrike(at);
    case "code":
      return new Api.MessageEntityCode(at);
    case "pre":
      return new Api.MessageEntityPre({ ...at, language: e.language ?? "" });
    case "link":
      return new Api.MessageEntityTextUrl({ ...at, url: e.url ?? "" });
  }
}

/** The `entities` field of a send: absent when the text has no formatting. */
export function sendEntities(entities: readonly FormatEntity[] | undefined): {
  entities?: Api.TypeMessageEntity[];
} {
  return entities !== undefined && entities.length > 0 ? { entities: entities.map(apiEntity) } : {};
}
