/**
 * Speech audio → a Telegram voice note: the PCM a speech model returned (raw 16-bit PCM, or a WAV
 * file — read from its MIME type), resampled to 48 kHz mono, encoded as Opus by libopus compiled
 * to WebAssembly (npm `opusscript`: no system package, no native build), put into Ogg pages
 * (ogg-opus.ts), with the duration in seconds and the 100-bar waveform Telegram draws in the
 * bubble (5 bits a bar, packed as Telegram Desktop packs it: docs/telegram-facts.md). All in
 * memory: the audio is never written to disk.
 */
import OpusScript from "opusscript";
import { muxOggOpus, OPUS_GRANULE_RATE } from "./ogg-opus";

/** What speech synthesis returned, as it came. */
export interface SpeechAudio {
  readonly data: Buffer;
  /** As the server said: `audio/L16;codec=pcm;rate=24000`, `audio/wav`, `audio/pcm`… */
  readonly mimeType: string;
}

/** Mono 16-bit samples and their rate. */
export interface Pcm {
  readonly samples: Int16Array;
  readonly rate: number;
}

/** A voice note ready to upload. */
export interface VoiceNote {
  /** The `.ogg` file (Opus, 48 kHz, mono). */
  readonly ogg: Buffer;
  /** Whole seconds, at least 1 (DocumentAttributeAudio.duration). */
  readonly seconds: number;
  /** 100 bars of 0–31, packed 5 bits each (DocumentAttributeAudio.waveform, 63 bytes). */
  readonly waveform: Buffer;
}

/** A speech answer we cannot read (an unknown MIME type, a broken WAV). */
export class AudioFormatError extends Error {}

/** Speech longer than the caller takes (told before it is encoded). */
class TooLongError extends Error {}

/** The rate raw PCM is assumed to have when its MIME type names none (Gemini's and OpenAI's). */
const DEFAULT_PCM_RATE = 24_000;
/** 20 ms at 48 kHz: the frame libopus encodes. */
const FRAME = 960;
/** libopus's look-ahead at 48 kHz (2.5 ms + 4 ms of delay compensation): OpusHead's pre-skip. */
const PRE_SKIP = 312;
/** Speech at 32 kbit/s: clear, and about 4 KB a second. */
const BITRATE = 32_000;
/** Bars of the waveform, as Telegram's own apps record them. */
const WAVEFORM_BARS = 100;

/**
 * The samples of a speech answer. Raw PCM (`audio/L16`, `audio/pcm`, `audio/raw`) is read as
 * 16-bit little-endian mono — as Gemini and OpenAI send it, whatever RFC 2586 says of L16's byte
 * order — at the `rate=` its type names (default 24 kHz); `audio/wav` (`x-wav`, `wave`) is read
 * from its `fmt ` and `data` chunks (16-bit PCM, channels mixed down).
 */
export function readPcm(audio: SpeechAudio): Pcm {
  const [type = "", ...params] = audio.mimeType
    .toLowerCase()
    .split(";")
    .map((s) => s.trim());
  if (type === "audio/wav" || type === "audio/x-wav" || type === "audio/wave") return readWav(audio.data);
  if (type === "audio/l16" || type === "audio/pcm" || type === "audio/raw") {
    const rateParam = params.find((p) => p.startsWith("rate="));
    const rate = rateParam ? Number(rateParam.slice(5)) : DEFAULT_PCM_RATE;
    if (!Number.isInteger(rate) || rate < 8000 || rate > 96_000)
      throw new AudioFormatError(`unreadable rate in ${JSON.stringify(audio.mimeType)}`);
    return { samples: int16(audio.data, 0, audio.data.length), rate };
  }
  throw new AudioFormatError(`speech came as ${JSON.stringify(audio.mimeType)}, not PCM or WAV`);
}

/** Little-endian 16-bit samples of `b[start, end)`: one copy through a typed view, no per-sample read. */
function int16(b: Buffer, start: number, end: number): Int16Array {
  const n = Math.floor((end - start) / 2);
  const bytes = new Uint8Array(n * 2);
  bytes.set(b.subarray(start, start + n * 2));
  const out = new Int16Array(bytes.buffer, 0, n);
  if (!LITTLE_ENDIAN) for (let i = 0; i < n; i++) out[i] = b.readInt16LE(start + i * 2);
  return out;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function readWav(b: Buffer): Pcm {
  if (b.length < 12 || b.toString("latin1", 0, 4) !== "RIFF" || b.toString("latin1", 8, 12) !== "WAVE")
    throw new AudioFormatError("a WAV answer without its RIFF/WAVE header");
  let fmt: { channels: number; rate: number; bits: number; format: number } | undefined;
  for (let at = 12; at + 8 <= b.length;) {
    const id = b.toString("latin1", at, at + 4);
    // A streamed WAV may carry 0 or 0xFFFFFFFF as the data size: the rest of the file.
    const declared = b.readUInt32LE(at + 4);
    const start = at + 8;
    const end = Math.min(b.length, declared === 0 || declared === 0xffffffff ? b.length : start + declared);
    if (id === "fmt " && end - start >= 16)
      fmt = {
        format: b.readUInt16LE(start),
        channels: b.readUInt16LE(start + 2),
        rate: b.readUInt32LE(start + 4),
        bits: b.readUInt16LE(start + 14),
      };
    if (id === "data") {
      if (!fmt) throw new AudioFormatError("a WAV answer whose data comes before its format");
      if ((fmt.format !== 1 && fmt.format !== 0xfffe) || fmt.bits !== 16 || fmt.channels < 1)
        throw new AudioFormatError(
          `a WAV answer that is not 16-bit PCM (format ${fmt.format}, ${fmt.bits} bits, ${fmt.channels} channels)`,
        );
      const all = int16(b, start, end);
      if (fmt.channels === 1) return { samples: all, rate: fmt.rate };
      const frames = Math.floor(all.length / fmt.channels);
      const mono = new Int16Array(frames);
      for (let i = 0; i < frames; i++) {
        let sum = 0;
        for (let c = 0; c < fmt.channels; c++) sum += all[i * fmt.channels + c]!;
        mono[i] = Math.round(sum / fmt.channels);
      }
      return { samples: mono, rate: fmt.rate };
    }
    at = start + declared + (declared % 2);
    if (declared === 0 || declared === 0xffffffff) break;
  }
  throw new AudioFormatError("a WAV answer without a data chunk");
}

/** Zero crossings on each side of the windowed-sinc kernel. */
const SINC_HALF_WIDTH = 8;

/**
 * `pcm` at `rate` (a windowed-sinc resampler: Blackman window, cut off below the lower of the two
 * Nyquist frequencies, so 24 → 48 kHz adds no mirror image above 12 kHz). The kernel depends only
 * on where an output sample falls between two input samples: for rates with a small ratio (24 →
 * 48 kHz: 2 phases; 22.05 → 48 kHz: 320) each phase's weights are computed once.
 */
export function resample(pcm: Pcm, rate: number): Int16Array {
  const steps = resampling(pcm, rate);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** Output samples resampled per turn of resampleInTurns (half a second at 48 kHz). */
const RESAMPLE_TURN = 24_000;

/** `resample`, giving the event loop a turn after every half second of output. */
export async function resampleInTurns(pcm: Pcm, rate: number): Promise<Int16Array> {
  const steps = resampling(pcm, rate);
  let r = steps.next();
  while (!r.done) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    r = steps.next();
  }
  return r.value;
}

/** The resampler: yields after every RESAMPLE_TURN output samples, returns the samples. */
function* resampling(pcm: Pcm, rate: number): Generator<void, Int16Array, void> {
  if (pcm.rate === rate) return pcm.samples;
  const x = pcm.samples;
  const cutoff = Math.min(1, rate / pcm.rate);
  const reach = Math.ceil(SINC_HALF_WIDTH / cutoff);
  const taps = 2 * reach;
  const g = gcd(pcm.rate, rate);
  const step = pcm.rate / g;
  const phases = rate / g;
  const n = Math.floor((x.length * rate) / pcm.rate);
  const out = new Int16Array(n);
  const cache: (Float64Array | undefined)[] | undefined =
    phases <= MAX_PHASES ? new Array(phases) : undefined;
  for (let i = 0; i < n; i++) {
    if (i > 0 && i % RESAMPLE_TURN === 0) yield;
    // Output i sits at input position (i·step)/phases: its whole part and its phase.
    const pos = i * step;
    const centre = Math.floor(pos / phases);
    const phase = pos - centre * phases;
    let w = cache?.[phase];
    if (!w) {
      w = kernel(phase / phases, reach, cutoff, taps);
      if (cache) cache[phase] = w;
    }
    let acc = 0;
    const first = centre - reach + 1;
    if (first >= 0 && first + taps <= x.length) {
      for (let k = 0; k < taps; k++) acc += x[first + k]! * w[k]!;
    } else {
      for (let k = 0; k < taps; k++) {
        const j = first + k;
        if (j >= 0 && j < x.length) acc += x[j]! * w[k]!;
      }
    }
    const v = Math.round(acc);
    out[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
  }
  return out;
}

/** Most kernel phases kept (a ratio of two rates with a larger denominator computes them as it goes). */
const MAX_PHASES = 4096;

/** The normalised weights of the taps around an output sample `frac` past its input sample. */
function kernel(frac: number, reach: number, cutoff: number, taps: number): Float64Array {
  const w = new Float64Array(taps);
  let norm = 0;
  for (let k = 0; k < taps; k++) {
    const d = frac + reach - 1 - k;
    const u = d * cutoff;
    const sinc = u === 0 ? 1 : Math.sin(Math.PI * u) / (Math.PI * u);
    const win = 0.42 + 0.5 * Math.cos((Math.PI * d) / reach) + 0.08 * Math.cos((2 * Math.PI * d) / reach);
    w[k] = sinc * win;
    norm += w[k]!;
  }
  for (let k = 0; k < taps; k++) w[k]! /= norm;
  return w;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/**
 * The waveform Telegram shows: `bars` peaks of the absolute amplitude, scaled so the loudest is
 * 31, each packed in 5 bits from the lowest bit of byte 0 on (bar i at bit 5·i, little-endian
 * across byte boundaries) — Telegram Desktop's documentWaveformEncode5bit, read back the same way
 * by mtcute's decodeWaveform.
 */
function waveformOf(samples: Int16Array, bars = WAVEFORM_BARS): Buffer {
  const peaks = new Array<number>(bars).fill(0);
  for (let i = 0; i < samples.length; i++) {
    const bar = Math.min(bars - 1, Math.floor((i * bars) / samples.length));
    const v = Math.abs(samples[i]!);
    if (v > peaks[bar]!) peaks[bar] = v;
  }
  const max = Math.max(...peaks);
  return packWaveform(peaks.map((p) => (max > 0 ? Math.round((p / max) * 31) : 0)));
}

/** Values 0–31 packed 5 bits each (see {@link waveformOf}). */
export function packWaveform(values: readonly number[]): Buffer {
  const out = Buffer.alloc(Math.ceil((values.length * 5) / 8) + 1);
  values.forEach((raw, i) => {
    const bit = i * 5;
    const at = bit >> 3;
    const v = ((raw & 0x1f) << (bit & 7)) & 0xffff;
    out.writeUInt16LE(out.readUInt16LE(at) | v, at);
  });
  return out.subarray(0, out.length - 1);
}

/** The 5-bit values back from a packed waveform (for tests and the console). */
export function unpackWaveform(packed: Uint8Array): number[] {
  const n = Math.floor((packed.length * 8) / 5);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const bit = i * 5;
    const at = bit >> 3;
    const word = packed[at]! | ((packed[at + 1] ?? 0) << 8);
    out.push((word >> (bit & 7)) & 0x1f);
  }
  return out;
}

/** Frames encoded between two turns given back to the event loop (half a second of audio, a few ms of CPU). */
const FRAMES_PER_TURN = 25;

/**
 * Encode speech as a voice note (Ogg Opus, 48 kHz, mono), giving the event loop a turn every
 * half second of audio, so inbound messages are not held while a long note is encoded. Rejects
 * with AudioFormatError for unreadable audio.
 */
export async function encodeVoiceNote(
  audio: SpeechAudio,
  o: { readonly serial?: number; readonly maxSeconds?: number } = {},
): Promise<VoiceNote> {
  const pcm = readPcm(audio);
  if (pcm.samples.length === 0) throw new AudioFormatError("the speech answer holds no samples");
  // Too long to send: refused before any resampling or encoding is paid for.
  const seconds = pcm.samples.length / pcm.rate;
  if (o.maxSeconds !== undefined && seconds > o.maxSeconds)
    throw new TooLongError(`the note runs ${Math.round(seconds)} s, past ${o.maxSeconds} s`);
  const samples = await resampleInTurns(pcm, OPUS_GRANULE_RATE);
  const encoder = new OpusScript(OPUS_GRANULE_RATE, 1, OpusScript.Application.VOIP);
  const packets: Buffer[] = [];
  try {
    encoder.setBitrate(BITRATE);
    // Enough frames for every sample plus the look-ahead, the last one padded with silence.
    const frames = Math.ceil((samples.length + PRE_SKIP) / FRAME);
    const frame = Buffer.alloc(FRAME * 2);
    for (let f = 0; f < frames; f++) {
      frame.fill(0);
      const from = f * FRAME;
      const to = Math.min(samples.length, from + FRAME);
      for (let i = from; i < to; i++) frame.writeInt16LE(samples[i]!, (i - from) * 2);
      packets.push(encoder.encode(frame, FRAME));
      if ((f + 1) % FRAMES_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    encoder.delete();
  }
  const ogg = muxOggOpus({
    packets,
    frameSamples: FRAME,
    preSkip: PRE_SKIP,
    samples: samples.length,
    channels: 1,
    inputRate: OPUS_GRANULE_RATE,
    serial: o.serial ?? (Math.random() * 0xffffffff) >>> 0,
    vendor: "libopus 1.4 (opusscript)",
  });
  return {
    ogg,
    seconds: Math.max(1, Math.round(samples.length / OPUS_GRANULE_RATE)),
    waveform: waveformOf(samples),
  };
}
