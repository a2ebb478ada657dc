/**
 * `--echo`'s stand-in for speech (llm/speech.ts), so a voice note can be seen going out without a
 * key: every text is "spoken" as a soft 220 Hz hum as long as the words take to say, raw 16-bit
 * PCM at 24 kHz as Gemini sends it — real audio, encoded, uploaded and sent like a model's.
 */
import type { SpeechClient, SpeechRequest, SpeechResult } from "../llm/speech";
import type { LlmUsage } from "../llm/types";
import { speakingSeconds } from "../planning/voice-offer";

const RATE = 24_000;

export class EchoSpeech implements SpeechClient {
  readonly model = "echo (no speech model)";

  onUsage(_listener: (u: LlmUsage) => void): () => void {
    return () => {};
  }

  async speak(req: SpeechRequest): Promise<SpeechResult> {
    const n = speakingSeconds(req.text) * RATE;
    const data = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i++)
      data.writeInt16LE(Math.round(4000 * Math.sin((2 * Math.PI * 220 * i) / RATE)), i * 2);
    return { data, mimeType: "audio/L16;codec=pcm;rate=24000", model: this.model };
  }
}
