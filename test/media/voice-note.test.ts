import OpusScript from "opusscript";
import { describe, expect, it } from "vitest";
import {
  AudioFormatError,
  encodeVoiceNote,
  packWaveform,
  readPcm,
  resample,
  resampleInTurns,
  unpackWaveform,
} from "../../src/media/voice-note";
import { readOggOpus } from "../support/ogg-opus-check";
import { tonePcm, toneWav } from "../support/tone";

/** Zero crossings per second of decoded 48 kHz PCM (a 440 Hz tone crosses 880 times). */
function crossingsPerSecond(pcm: Int16Array): number {
  let n = 0;
  for (let i = 1; i < pcm.length; i++) if (pcm[i - 1]! < 0 !== pcm[i]! < 0) n++;
  return n / (pcm.length / 48_000);
}

function decode(packets: readonly Buffer[]): Int16Array {
  const dec = new OpusScript(48_000, 1, OpusScript.Application.VOIP);
  try {
    const parts = packets.map((p) => dec.decode(p));
    const all = Buffer.concat(parts);
    return new Int16Array(all.buffer, all.byteOffset, all.length / 2);
  } finally {
    dec.delete();
  }
}

describe("voice notes from speech audio", () => {
  it("turns Gemini's 24 kHz PCM into an Ogg Opus file a player reads: 48 kHz, mono, the right length", async () => {
    const note = await encodeVoiceNote({ data: tonePcm(3), mimeType: "audio/L16;codec=pcm;rate=24000" });
    const ogg = readOggOpus(note.ogg);
    expect(ogg).toMatchObject({ channels: 1, inputRate: 48_000, preSkip: 312, flagsOk: true });
    expect(ogg.finalGranule - ogg.preSkip).toBe(3 * 48_000);
    expect(ogg.packets.length).toBe(Math.ceil((3 * 48_000 + 312) / 960));
    expect(note.seconds).toBe(3);
    // What a listener hears: the tone, at its pitch, back out of the real decoder.
    const heard = decode(ogg.packets).subarray(48_000, 96_000);
    expect(crossingsPerSecond(heard)).toBeGreaterThan(860);
    expect(crossingsPerSecond(heard)).toBeLessThan(900);
  });

  it("reads WAV answers (newer models), stereo mixed down, and takes the rate from the file", async () => {
    const note = await encodeVoiceNote({
      data: toneWav(2, { rate: 16_000, channels: 2 }),
      mimeType: "audio/wav",
    });
    const ogg = readOggOpus(note.ogg);
    expect(ogg.finalGranule - ogg.preSkip).toBe(2 * 48_000);
    expect(note.seconds).toBe(2);
  });

  it("refuses audio it cannot read instead of sending noise", async () => {
    expect(() => readPcm({ data: Buffer.alloc(100), mimeType: "audio/mpeg" })).toThrow(AudioFormatError);
    expect(() => readPcm({ data: Buffer.from("RIFF....WAVEjunk"), mimeType: "audio/wav" })).toThrow(
      /data chunk/,
    );
    await expect(encodeVoiceNote({ data: Buffer.alloc(0), mimeType: "audio/pcm" })).rejects.toThrow(
      /no samples/,
    );
  });

  it("draws a waveform of 100 five-bit bars that follows the loudness", async () => {
    // Silence, then a tone: the first half of the bars are low, the second half at the top.
    const pcm = Buffer.concat([Buffer.alloc(24_000 * 2), tonePcm(1)]);
    const note = await encodeVoiceNote({ data: pcm, mimeType: "audio/L16;codec=pcm;rate=24000" });
    expect(note.waveform.length).toBe(63);
    const bars = unpackWaveform(note.waveform).slice(0, 100);
    expect(Math.max(...bars.slice(0, 45))).toBe(0);
    expect(Math.min(...bars.slice(55))).toBeGreaterThanOrEqual(30);
  });

  it("packs bars as Telegram Desktop does: bar i at bit 5·i, little-endian", () => {
    expect([...packWaveform([31, 0, 0, 0, 0, 0, 0, 0])]).toEqual([0x1f, 0, 0, 0, 0]);
    expect([...packWaveform([0, 31])]).toEqual([0xe0, 0x03]);
    expect([...packWaveform([1, 2, 3, 4])]).toEqual([0x41, 0x0c, 0x02]);
    const values = Array.from({ length: 100 }, (_, i) => (i * 7) % 32);
    expect(unpackWaveform(packWaveform(values)).slice(0, 100)).toEqual(values);
  });

  it("resamples 24 → 48 kHz keeping the pitch", () => {
    const pcm = tonePcm(1, { rate: 24_000, hz: 1000 });
    const up = resample(
      { samples: new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2), rate: 24_000 },
      48_000,
    );
    expect(up.length).toBe(48_000);
    expect(crossingsPerSecond(up.subarray(100, 47_900))).toBeCloseTo(2000, -1);
  });

  it("speech longer than the caller takes is refused before it is resampled or encoded", async () => {
    const audio = { data: tonePcm(30), mimeType: "audio/L16;codec=pcm;rate=24000" };
    await expect(encodeVoiceNote(audio, { maxSeconds: 25 })).rejects.toThrow(/runs 30 s, past 25 s/);
    expect((await encodeVoiceNote({ ...audio, data: tonePcm(2) }, { maxSeconds: 25 })).seconds).toBe(2);
  });

  it("resampling in turns gives the event loop a turn every half second of output, the same samples", async () => {
    const data = tonePcm(3, { rate: 24_000, hz: 440 });
    const pcm = readPcm({ data, mimeType: "audio/L16;codec=pcm;rate=24000" });
    let turns = 0;
    let counting = true;
    const tick = () => {
      if (!counting) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const up = await resampleInTurns(pcm, 48_000);
    counting = false;
    expect(turns).toBeGreaterThanOrEqual(5);
    expect(up).toEqual(resample(pcm, 48_000));
  });

  it("reads raw PCM at an odd byte offset the same as sample by sample", () => {
    const data = Buffer.concat([Buffer.from([0]), tonePcm(1)]).subarray(1);
    const pcm = readPcm({ data, mimeType: "audio/pcm;rate=24000" });
    expect(pcm.samples.length).toBe(24_000);
    expect(Array.from(pcm.samples.subarray(0, 50))).toEqual(
      Array.from({ length: 50 }, (_, i) => data.readInt16LE(i * 2)),
    );
  });
});
