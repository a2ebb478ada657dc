/**
 * Link previews as Telegram's server attaches them (see docs/telegram-facts.md, "Link previews").
 *
 * A test or the sandbox registers pages by URL; a posted message whose text carries a registered
 * URL (the first one) gets `messageMediaWebPage`: a complete `webPage` when the page is ready, a
 * `webPagePending` (id, url, date) while the server is still generating it, a `webPageEmpty` for a
 * page registered as having no preview. `emu.webPages.complete(url)` then finishes a pending page
 * the way the server does: `updateWebPage` (DMs, basic groups: the account's pts) or
 * `updateChannelWebPage` (supergroups: the channel's pts) to every member account with a message
 * showing it — or, with `via: "edit"`, an `updateEditMessage` of each such message carrying the
 * finished preview. A URL nobody registered gets no preview (the server could not fetch it).
 * The preview's photo, document and instant view (`cached_page`) are not modelled.
 */
import { Api } from "telegram";
import { toLong } from "./long";

/** What a registered page's preview says (any field may be missing, as with real sites). */
export interface WebPageInput {
  readonly siteName?: string;
  readonly title?: string;
  readonly description?: string;
  /** Telegram's kind: "article", "video", "photo", "profile", "telegram_channel" … */
  readonly type?: string;
  readonly author?: string;
  /** The server is still generating the preview: messages show webPagePending until complete(). */
  readonly pending?: boolean;
  /** The server has no preview for this page: messages show webPageEmpty. */
  readonly empty?: boolean;
}

/** One page as the server holds it; every message linking to it shows its current state. */
export interface WebPageRecord {
  readonly id: number;
  readonly url: string;
  readonly page: WebPageInput;
  /** Unix seconds the generation started (webPagePending.date). */
  readonly startedAt: number;
  ready: boolean;
}

const URL_RE = /https?:\/\/[^\s<>"']+/giu;

/** The server's registry of pages (by URL, as typed in the message). */
export class WebPageRegistry {
  private readonly pages = new Map<string, WebPageRecord>();
  private nextId = 7_100_000_001;

  constructor(private readonly now: () => number) {}

  register(url: string, page: WebPageInput): WebPageRecord {
    if (!/^https?:\/\//i.test(url))
      throw new Error(`emulator: a web page URL starts with http(s):// (got ${url})`);
    const rec: WebPageRecord = {
      id: this.nextId++,
      url,
      page,
      startedAt: Math.floor(this.now() / 1000),
      ready: page.pending !== true,
    };
    this.pages.set(url, rec);
    return rec;
  }

  get(url: string): WebPageRecord | undefined {
    return this.pages.get(url);
  }

  /** The page the first registered URL of `text` names, if any. */
  forText(text: string): WebPageRecord | undefined {
    if (this.pages.size === 0 || !text.includes("http")) return undefined;
    for (const m of text.matchAll(URL_RE)) {
      const rec = this.pages.get(m[0].replace(/[.,;:!?)]+$/u, ""));
      if (rec) return rec;
    }
    return undefined;
  }
}

/** The TL web page a message shows for `rec` now. */
export function webPageOf(rec: WebPageRecord): Api.TypeWebPage {
  const id = toLong(rec.id);
  if (rec.page.empty) return new Api.WebPageEmpty({ id, url: rec.url });
  if (!rec.ready) return new Api.WebPagePending({ id, url: rec.url, date: rec.startedAt });
  const p = rec.page;
  return new Api.WebPage({
    id,
    url: rec.url,
    displayUrl: rec.url.replace(/^https?:\/\//i, ""),
    hash: 0,
    ...(p.type !== undefined ? { type: p.type } : {}),
    ...(p.siteName !== undefined ? { siteName: p.siteName } : {}),
    ...(p.title !== undefined ? { title: p.title } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
    ...(p.author !== undefined ? { author: p.author } : {}),
  });
}

/** The media of a message that links to `rec`. */
export function webPageMedia(rec: WebPageRecord): Api.MessageMediaWebPage {
  return new Api.MessageMediaWebPage({ webpage: webPageOf(rec) });
}
