/** Real audio for tests: a sine tone as 16-bit little-endian PCM, raw or in a WAV file. */

/** `seconds` of a `hz` tone at `rate`, mono 16-bit little-endian, amplitude `amp` (0–1). */
export function tonePcm(seconds: number, o: { rate?: number; hz?: number; amp?: number } = {}): Buffer {
  const rate = o.rate ?? 24_000;
  const hz = o.hz ?? 440;
  const amp = (o.amp ?? 0.3) * 32767;
  const n = Math.round(seconds * rate);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)), i * 2);
  return b;
}

/** The same PCM in a canonical 44-byte-header WAV file. */
export function toneWav(seconds: number, o: { rate?: number; hz?: number; channels?: number } = {}): Buffer {
  const rate = o.rate ?? 24_000;
  const channels = o.channels ?? 1;
  const mono = tonePcm(seconds, { rate, ...(o.hz !== undefined ? { hz: o.hz } : {}) });
  const data = Buffer.alloc(mono.length * channels);
  for (let i = 0; i < mono.length / 2; i++)
    for (let c = 0; c < channels; c++) data.writeInt16LE(mono.readInt16LE(i * 2), (i * channels + c) * 2);
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "latin1");
  h.writeUInt32LE(36 + data.length, 4);
  h.write("WAVE", 8, "latin1");
  h.write("fmt ", 12, "latin1");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "latin1");
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}
