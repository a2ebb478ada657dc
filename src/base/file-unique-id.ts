/**
 * File unique ids as the Bot API spells them (`file_unique_id`), so a curated description file
 * written with a bot's help matches what the persona sees: base64url of the run-length-encoded
 * bytes `int32 LE type` + `int64 LE id` (zero bytes as `0x00, count`). Type 2 is a document
 * (stickers, GIFs, voice, video, files). Photos get type 1 with the photo id — one id per photo,
 * where the Bot API has one per size (we download one size).
 */

/** TDLib's unique-id types used here. */
export const UNIQUE_TYPE = { photo: 1, document: 2 } as const;

function rleEncode(bytes: Uint8Array): Buffer {
  const out: number[] = [];
  let zeros = 0;
  for (const b of bytes) {
    if (b === 0) {
      zeros++;
      if (zeros === 255) {
        out.push(0, zeros);
        zeros = 0;
      }
      continue;
    }
    if (zeros > 0) {
      out.push(0, zeros);
      zeros = 0;
    }
    out.push(b);
  }
  if (zeros > 0) out.push(0, zeros);
  return Buffer.from(out);
}

/** The unique id of a file of `type` with Telegram id `id` (a signed 64-bit integer as a decimal string). */
export function fileUniqueId(type: keyof typeof UNIQUE_TYPE, id: string | bigint): string {
  const buf = Buffer.alloc(12);
  buf.writeInt32LE(UNIQUE_TYPE[type], 0);
  buf.writeBigInt64LE(BigInt.asIntN(64, BigInt(id)), 4);
  return rleEncode(buf).toString("base64url");
}
