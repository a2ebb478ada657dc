/**
 * The sticker sets the persona sends from, resolved once (messages.GetStickerSet) and kept: a
 * set's documents and the emoji each stands for. An unknown set (STICKERSET_INVALID) is kept as
 * missing; a transient failure is not kept. File references expire, and the cached set with them:
 * the sender forgets the set and asks again (see GramActions.sendSticker).
 */
import type { Logger } from "pino";
import { Api } from "telegram";
import { PermanentError } from "../../tasks/errors";

/** One sticker of a set: the document to send and the emoji it stands for. */
export interface StickerDoc {
  readonly doc: Api.Document;
  readonly emoji: string;
}

export interface StickerSetsOptions {
  /** Send the request as the chat's action would (its timeout and error policy, see rpc-errors.ts). */
  readonly fetch: (req: Api.messages.GetStickerSet, chatId: string) => Promise<Api.messages.TypeStickerSet>;
  readonly logger: Logger;
}

export class StickerSets {
  private readonly sets = new Map<string, Promise<StickerDoc[] | undefined>>();

  constructor(private readonly o: StickerSetsOptions) {}

  /** The sticker of set `shortName` that stands for emoji `name` (variation selectors ignored), if any. */
  async find(shortName: string, name: string, chatId: string): Promise<StickerDoc | undefined> {
    const docs = await this.get(shortName, chatId);
    const want = name.replace(/\uFE0F/g, "");
    return docs?.find((d) => d.emoji.replace(/\uFE0F/g, "") === want);
  }

  /** The emoji of a set fetched before (the cache only: no request), else undefined. */
  async known(shortName: string): Promise<readonly string[] | undefined> {
    const docs = await this.sets.get(shortName)?.catch(() => undefined);
    return docs?.map((d) => d.emoji).filter((e) => e !== "");
  }

  /** Drop a set whose file references expired; the next `find` fetches it again. */
  forget(shortName: string): void {
    this.sets.delete(shortName);
  }

  /** Resolve a sticker set once and cache it; unknown sets are cached as missing. */
  private get(shortName: string, chatId: string): Promise<StickerDoc[] | undefined> {
    let p = this.sets.get(shortName);
    if (!p) {
      p = this.fetchSet(shortName, chatId);
      this.sets.set(shortName, p);
      // A transient failure must not be cached forever.
      p.catch(() => this.sets.delete(shortName));
    }
    return p;
  }

  private async fetchSet(shortName: string, chatId: string): Promise<StickerDoc[] | undefined> {
    let res: Api.messages.TypeStickerSet;
    try {
      res = await this.o.fetch(
        new Api.messages.GetStickerSet({
          stickerset: new Api.InputStickerSetShortName({ shortName }),
          hash: 0,
        }),
        chatId,
      );
    } catch (e) {
      if (e instanceof PermanentError && e.code === "STICKERSET_INVALID") {
        this.o.logger.warn({ component: "telegram", set: shortName }, "sticker set not found");
        return undefined;
      }
      throw e;
    }
    if (!(res instanceof Api.messages.StickerSet)) return undefined;
    const out: StickerDoc[] = [];
    for (const d of res.documents) {
      if (!(d instanceof Api.Document)) continue;
      const attr = d.attributes.find(
        (a): a is Api.DocumentAttributeSticker => a instanceof Api.DocumentAttributeSticker,
      );
      out.push({ doc: d, emoji: attr?.alt ?? "" });
    }
    return out;
  }
}
