/**
 * `emu.webPages`: what a test or the sandbox does with link previews — register pages, finish a
 * pending one as Telegram's server does (web-pages.ts holds the server's registry and TL shapes).
 */
import type { MessageChanges } from "./message-changes";
import type { ChatRecord, StoredMessage } from "./stored-message";
import { webPageOf, type WebPageInput, type WebPageRecord, type WebPageRegistry } from "./web-pages";

/** What `emu.webPages` offers a test or the sandbox. */
export interface WebPagesDeps {
  readonly registry: WebPageRegistry;
  /** Every stored message (any chat) that links to `page`, grouped by chat. */
  readonly messagesOf: (page: WebPageRecord) => Map<ChatRecord, StoredMessage[]>;
  readonly changes: MessageChanges;
}

/** Register pages; complete pending previews as the server does. */
export class WebPages {
  constructor(private readonly d: WebPagesDeps) {}

  /** The server can preview `url` (ready at once, pending until complete(), or empty). */
  register(url: string, page: WebPageInput = {}): void {
    this.d.registry.register(url, page);
  }

  /**
   * The server finished generating `url`'s preview: every member account with a message showing
   * it pending gets `updateWebPage` / `updateChannelWebPage` (default) or an edit of each message.
   * Resolves after the clients' handlers ran.
   */
  async complete(url: string, o: { readonly via?: "update" | "edit" } = {}): Promise<void> {
    const rec = this.d.registry.get(url);
    if (!rec) throw new Error(`emulator: no web page registered for ${url}`);
    if (rec.ready) throw new Error(`emulator: the preview of ${url} is already complete`);
    rec.ready = true;
    for (const [chat, msgs] of this.d.messagesOf(rec))
      await this.d.changes.previewReady(chat, msgs, () => webPageOf(rec), o.via ?? "update");
  }
}
