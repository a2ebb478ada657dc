/** A duration for people to read: `2d 3h 05m`, `1h 05m`, `3m 20s`, `12s`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (v: number) => String(v).padStart(2, "0");
  if (d > 0) return `${d}d ${h}h ${pad(m)}m`;
  if (h > 0) return `${h}h ${pad(m)}m`;
  if (m > 0) return `${m}m ${pad(s % 60)}s`;
  return `${s}s`;
}

const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/**
 * A duration as people type it: `9h`, `90m`, `1d`, `45s`, or units together (`1h30m`, `1d 2h`).
 * Undefined when `text` is not one (no unit, an unknown unit, nothing at all).
 */
export function parseDuration(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (!/^(\d+(\.\d+)?\s*[dhms]\s*)+$/.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(/(\d+(?:\.\d+)?)\s*([dhms])/g)) ms += Number(m[1]) * UNIT_MS[m[2]!]!;
  return Math.round(ms);
}
