/**
 * Reads an Ogg Opus file the way a player does, for tests: every page's capture pattern, version
 * and CRC checked, packets reassembled from the lacing values, OpusHead and OpusTags read, the
 * final granule position taken. Throws an Error naming what is wrong.
 */
import { oggCrc } from "../../src/media/ogg-opus";

export interface OggOpusFile {
  readonly channels: number;
  readonly preSkip: number;
  readonly inputRate: number;
  readonly vendor: string;
  /** Audio packets (after the two header packets). */
  readonly packets: Buffer[];
  readonly pages: number;
  /** The last page's granule position (48 kHz samples, pre-skip included). */
  readonly finalGranule: number;
  /** The first page is flagged beginning-of-stream and the last end-of-stream. */
  readonly flagsOk: boolean;
}

export function readOggOpus(file: Buffer): OggOpusFile {
  const packets: Buffer[] = [];
  let partial: Buffer[] = [];
  let at = 0;
  let pages = 0;
  let granule = 0;
  let flagsOk = true;
  let lastType = 0;
  while (at < file.length) {
    if (file.toString("latin1", at, at + 4) !== "OggS") throw new Error(`no OggS at byte ${at}`);
    if (file.readUInt8(at + 4) !== 0) throw new Error(`page ${pages}: version is not 0`);
    const type = file.readUInt8(at + 5);
    if (pages === 0 && (type & 2) === 0) flagsOk = false;
    if (pages > 0 && (type & 2) !== 0) flagsOk = false;
    const sequence = file.readUInt32LE(at + 18);
    if (sequence !== pages) throw new Error(`page ${pages}: sequence number ${sequence}`);
    const count = file.readUInt8(at + 26);
    const lacing = [...file.subarray(at + 27, at + 27 + count)];
    const size = 27 + count + lacing.reduce((a, b) => a + b, 0);
    const bytes = Buffer.from(file.subarray(at, at + size));
    const crc = bytes.readUInt32LE(22);
    bytes.writeUInt32LE(0, 22);
    if (oggCrc(bytes) !== crc) throw new Error(`page ${pages}: CRC mismatch`);
    let body = at + 27 + count;
    for (const l of lacing) {
      partial.push(file.subarray(body, body + l));
      body += l;
      if (l < 255) {
        packets.push(Buffer.concat(partial));
        partial = [];
      }
    }
    granule = Number(file.readBigInt64LE(at + 6));
    lastType = type;
    at += size;
    pages++;
  }
  if ((lastType & 4) === 0) flagsOk = false;
  const [head, tags, ...audio] = packets;
  if (!head || head.toString("latin1", 0, 8) !== "OpusHead")
    throw new Error("the first packet is not OpusHead");
  if (!tags || tags.toString("latin1", 0, 8) !== "OpusTags")
    throw new Error("the second packet is not OpusTags");
  const vendorLength = tags.readUInt32LE(8);
  return {
    channels: head.readUInt8(9),
    preSkip: head.readUInt16LE(10),
    inputRate: head.readUInt32LE(12),
    vendor: tags.toString("utf8", 12, 12 + vendorLength),
    packets: audio,
    pages,
    finalGranule: granule,
    flagsOk,
  };
}
