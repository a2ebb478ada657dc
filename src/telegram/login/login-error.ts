/**
 * The one error a login ends with when it cannot go on: its message is what the user reads
 * (never a secret), and the CLI exits non-zero with it.
 */
export class LoginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LoginError";
  }
}

/** "45 seconds", "3 minutes", "1 hour 5 minutes", "23 hours 59 minutes" — for flood waits. */
export function humanDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.ceil(totalSeconds));
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;
  if (s < 60) return plural(s, "second");
  const minutes = Math.ceil(s / 60);
  if (minutes < 60) return plural(minutes, "minute");
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return rest === 0 ? plural(hours, "hour") : `${plural(hours, "hour")} ${plural(rest, "minute")}`;
}
