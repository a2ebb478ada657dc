/**
 * upload.GetFile: a stored file in chunks, with Telegram's rules — `offset` a multiple of 4 KB,
 * `limit` a multiple of 4 KB that divides 1 MB (LIMIT_INVALID / OFFSET_INVALID otherwise), the
 * current file reference only (FILE_REFERENCE_EXPIRED for a stale one), a wrong id or access hash
 * FILE_ID_INVALID. Photos by InputPhotoFileLocation (one size, "x"), documents and stickers by
 * InputDocumentFileLocation — the file itself (`thumb_size` ""), or its still thumbnail by its
 * size type (LOCATION_INVALID for a type it does not have). A file lives on one data centre (its `dc_id`): asked on another
 * DC's connection, FILE_MIGRATE_X (303) names the right one.
 */
import { Api } from "telegram";
import { fromLong } from "../long";
import { PHOTO_SIZE_TYPE } from "../media-views";
import { RpcFault } from "../rpc-fault";
import { defineMethod } from "./method";

const KB4 = 4096;
const MB1 = 1024 * 1024;

export const getFile = defineMethod("upload.GetFile", Api.upload.GetFile, (ctx, req) => {
  const loc = req.location;
  if (!(loc instanceof Api.InputPhotoFileLocation) && !(loc instanceof Api.InputDocumentFileLocation))
    throw new RpcFault("LOCATION_INVALID");
  const file = ctx.world.files.get(fromLong(loc.id));
  if (!file || file.accessHash !== fromLong(loc.accessHash)) throw new RpcFault("FILE_ID_INVALID");
  if (file.dcId !== ctx.dcId) throw new RpcFault(`FILE_MIGRATE_${file.dcId}`, 303);
  if (loc instanceof Api.InputPhotoFileLocation && loc.thumbSize !== PHOTO_SIZE_TYPE)
    throw new RpcFault("LOCATION_INVALID");
  const still = loc instanceof Api.InputDocumentFileLocation && loc.thumbSize !== "";
  if (still && loc.thumbSize !== file.thumb?.type) throw new RpcFault("LOCATION_INVALID");
  if (!Buffer.from(loc.fileReference).equals(file.fileReference))
    throw new RpcFault("FILE_REFERENCE_EXPIRED");
  const served = still ? file.thumb! : file;
  const offset = fromLong(req.offset);
  const limit = req.limit;
  if (offset < 0 || offset % KB4 !== 0) throw new RpcFault("OFFSET_INVALID");
  if (limit <= 0 || limit % KB4 !== 0 || MB1 % limit !== 0) throw new RpcFault("LIMIT_INVALID");
  return new Api.upload.File({
    type:
      served.mimeType === "image/jpeg"
        ? new Api.storage.FileJpeg()
        : served.mimeType === "image/webp"
          ? new Api.storage.FileWebp()
          : new Api.storage.FilePartial(),
    mtime: 0,
    bytes: served.bytes.subarray(offset, offset + limit),
  });
});
