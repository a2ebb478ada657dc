/**
 * The Ogg container of a voice note: Opus packets in Ogg pages (RFC 3533, the Ogg format; RFC
 * 7845, Opus in Ogg). Hand-written, because no well-kept npm package muxes Ogg without bringing
 * its own encoder or a browser's MediaRecorder (docs/media.md says which and why): the format is
 * small and fixed —
 *
 * - page 0: the identification header `OpusHead` alone (beginning of stream): version 1, channel
 *   count, pre-skip, input sample rate, output gain 0, mapping family 0 (mono/stereo);
 * - page 1: the comment header `OpusTags` alone (vendor string, no comments);
 * - then the audio packets, a second of them a page; the last page has the end-of-stream flag.
 *
 * A page: `OggS`, version 0, header type (1 continued, 2 first, 4 last), granule position (the
 * 48 kHz samples decoded by the end of its last packet, pre-skip included; on the last page the
 * real length, which trims the padding), the stream's serial, the page's sequence number, its
 * CRC-32 (polynomial 0x04C11DB7, no reflection, initial 0, computed with the field zeroed), the
 * segment count and the lacing values (255s, then the remainder: a packet of exactly 255·k bytes
 * ends with a 0).
 */

/** The sample rate of every Opus granule position (RFC 7845 §4). */
export const OPUS_GRANULE_RATE = 48_000;
/** Most segments one page may hold. */
const MAX_SEGMENTS = 255;
/** Audio packets per page: a second of 20 ms frames. */
const PACKETS_PER_PAGE = 50;

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let k = 0; k < 8; k++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    t[i] = r >>> 0;
  }
  return t;
})();

/** Ogg's CRC-32 of `bytes`. */
export function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ b) & 0xff]!) >>> 0;
  return crc >>> 0;
}

function lacing(size: number): number[] {
  const out: number[] = [];
  let left = size;
  while (left >= 255) {
    out.push(255);
    left -= 255;
  }
  out.push(left);
  return out;
}

function page(o: {
  readonly packets: readonly Uint8Array[];
  readonly granule: bigint;
  readonly serial: number;
  readonly sequence: number;
  readonly first: boolean;
  readonly last: boolean;
}): Buffer {
  const segments = o.packets.flatMap((p) => lacing(p.length));
  if (segments.length > MAX_SEGMENTS) throw new Error(`an Ogg page holds at most ${MAX_SEGMENTS} segments`);
  const body = Buffer.concat(o.packets);
  const head = Buffer.alloc(27 + segments.length);
  head.write("OggS", 0, "latin1");
  head.writeUInt8(0, 4);
  head.writeUInt8((o.first ? 2 : 0) | (o.last ? 4 : 0), 5);
  head.writeBigInt64LE(o.granule, 6);
  head.writeUInt32LE(o.serial >>> 0, 14);
  head.writeUInt32LE(o.sequence, 18);
  head.writeUInt32LE(0, 22);
  head.writeUInt8(segments.length, 26);
  segments.forEach((s, i) => head.writeUInt8(s, 27 + i));
  const out = Buffer.concat([head, body]);
  out.writeUInt32LE(oggCrc(out), 22);
  return out;
}

/** The `OpusHead` identification header (RFC 7845 §5.1). */
function opusHead(channels: number, preSkip: number, inputRate: number): Buffer {
  const b = Buffer.alloc(19);
  b.write("OpusHead", 0, "latin1");
  b.writeUInt8(1, 8);
  b.writeUInt8(channels, 9);
  b.writeUInt16LE(preSkip, 10);
  b.writeUInt32LE(inputRate, 12);
  b.writeInt16LE(0, 16);
  b.writeUInt8(0, 18);
  return b;
}

/** The `OpusTags` comment header (RFC 7845 §5.2): the vendor string and no comments. */
function opusTags(vendor: string): Buffer {
  const v = Buffer.from(vendor, "utf8");
  const b = Buffer.alloc(8 + 4 + v.length + 4);
  b.write("OpusTags", 0, "latin1");
  b.writeUInt32LE(v.length, 8);
  v.copy(b, 12);
  b.writeUInt32LE(0, 12 + v.length);
  return b;
}

export interface OggOpusInput {
  /** Opus packets of `frameSamples` each (at 48 kHz), in order. */
  readonly packets: readonly Uint8Array[];
  readonly frameSamples: number;
  /** Samples the decoder drops at the start (the encoder's look-ahead). */
  readonly preSkip: number;
  /** The real length in 48 kHz samples (the last page's granule trims the padding after it). */
  readonly samples: number;
  readonly channels: number;
  /** The sample rate the audio had before encoding (informational, OpusHead's input_sample_rate). */
  readonly inputRate: number;
  readonly serial: number;
  readonly vendor: string;
}

/** The whole `.ogg` file. */
export function muxOggOpus(o: OggOpusInput): Buffer {
  const pages: Buffer[] = [
    page({
      packets: [opusHead(o.channels, o.preSkip, o.inputRate)],
      granule: 0n,
      serial: o.serial,
      sequence: 0,
      first: true,
      last: false,
    }),
    page({
      packets: [opusTags(o.vendor)],
      granule: 0n,
      serial: o.serial,
      sequence: 1,
      first: false,
      last: false,
    }),
  ];
  let decoded = 0;
  for (let i = 0; i < o.packets.length; i += PACKETS_PER_PAGE) {
    const chunk = o.packets.slice(i, i + PACKETS_PER_PAGE);
    decoded += chunk.length * o.frameSamples;
    const last = i + PACKETS_PER_PAGE >= o.packets.length;
    const granule = last ? Math.min(decoded, o.preSkip + o.samples) : decoded;
    pages.push(
      page({
        packets: chunk,
        granule: BigInt(granule),
        serial: o.serial,
        sequence: pages.length,
        first: false,
        last,
      }),
    );
  }
  return Buffer.concat(pages);
}
