/**
 * messages.GetStickerSet for sets added with `addStickerSet` (by short name or id).
 */
import { Api } from "telegram";
import { fromLong, toLong, type Long } from "../long";
import { RpcFault } from "../rpc-fault";
import type { StickerSetRecord } from "../stored-message";
import { defineMethod } from "./method";

export const getStickerSet = defineMethod(
  "messages.GetStickerSet",
  Api.messages.GetStickerSet,
  (ctx, req) => {
    const input = req.stickerset;
    let set: StickerSetRecord | undefined;
    if (input instanceof Api.InputStickerSetShortName) set = ctx.world.stickers.byShortName(input.shortName);
    if (input instanceof Api.InputStickerSetID) {
      const byId = ctx.world.stickers.byId(fromLong(input.id));
      set = byId && byId.accessHash === fromLong(input.accessHash) ? byId : undefined;
    }
    if (!set) throw new RpcFault("STICKERSET_INVALID");

    const packs = new Map<string, Long[]>();
    for (const doc of set.docs) packs.set(doc.emoji, [...(packs.get(doc.emoji) ?? []), toLong(doc.id)]);
    return new Api.messages.StickerSet({
      set: new Api.StickerSet({
        id: toLong(set.id),
        accessHash: toLong(set.accessHash),
        title: set.title,
        shortName: set.shortName,
        count: set.docs.length,
        hash: 0,
      }),
      packs: [...packs].map(([emoticon, documents]) => new Api.StickerPack({ emoticon, documents })),
      keywords: [],
      documents: set.docs.map((d) => ctx.views.document(d)),
    });
  },
);
