/** How fast the persona "types" and reads; from the persona file, with defaults there. */
export interface Pacing {
  readonly startTypingDelaySec: number;
  readonly typingSpeedCps: number;
  readonly readDelaySec: number;
}

/** Longest typing spell before one message, whatever its length. */
const MAX_TYPING_SEC = 30;
/** The "choosing a sticker" pause. */
export const STICKER_CHOICE_SEC = 2;
/** Telegram drops a typing status after about 6 s, so it is refreshed this often. */
export const TYPING_REFRESH_MS = 5000;

/** Seconds of typing shown before sending `text`: start delay + length / speed, bounded. */
export function typingSeconds(text: string, p: Pacing): number {
  const s = p.startTypingDelaySec + [...text].length / p.typingSpeedCps;
  return Math.min(MAX_TYPING_SEC, Math.round(s * 1000) / 1000);
}
