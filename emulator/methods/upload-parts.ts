/**
 * upload.SaveFilePart and upload.SaveBigFilePart: the parts of a file an account uploads before
 * it sends it (an InputFile names the upload by its random `id` and part count). Telegram's rules
 * (core.telegram.org/api/files): a part is at most 512 KB, its size divisible by 1 KB and 512 KB
 * divisible by it — except the last part — (FILE_PART_SIZE_INVALID, FILE_PART_INVALID for an index
 * outside 0–3999, FILE_PART_EMPTY). The parts are kept per account and upload id until a send uses
 * them (uploads.ts).
 */
import { Api } from "telegram";
import { fromLong } from "../long";
import { RpcFault } from "../rpc-fault";
import { uploadsOf } from "../uploads";
import { defineMethod } from "./method";

const MAX_PART = 512 * 1024;
const MAX_PARTS = 4000;

function save(
  ctx: Parameters<Parameters<typeof defineMethod>[2]>[0],
  fileId: Api.upload.SaveFilePart["fileId"],
  part: number,
  bytes: Buffer,
): boolean {
  if (part < 0 || part >= MAX_PARTS) throw new RpcFault("FILE_PART_INVALID");
  if (bytes.length === 0) throw new RpcFault("FILE_PART_EMPTY");
  if (bytes.length > MAX_PART) throw new RpcFault("FILE_PART_TOO_BIG");
  // Every part but the last is a whole number of KB that divides 512 KB (the last is checked at send).
  const regular = bytes.length % 1024 === 0 && MAX_PART % bytes.length === 0;
  uploadsOf(ctx.world, ctx.account.id).savePart(String(fromLong(fileId)), part, Buffer.from(bytes), regular);
  return true;
}

export const saveFilePart = defineMethod("upload.SaveFilePart", Api.upload.SaveFilePart, (ctx, req) =>
  save(ctx, req.fileId, req.filePart, req.bytes),
);

export const saveBigFilePart = defineMethod(
  "upload.SaveBigFilePart",
  Api.upload.SaveBigFilePart,
  (ctx, req) => save(ctx, req.fileId, req.filePart, req.bytes),
);
