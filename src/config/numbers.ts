/**
 * How a number may be written wherever the operator writes one (persona fields, numeric
 * environment variables): `2`, `1.5`, `.5`, and the integer part in groups of three digits
 * separated by `_`, `,` or a space — `2_000_000`, `2,000,000`, `2 000 000`. No signs, exponents
 * or units, and a separator must sit between groups of three (`1,5` is refused, not read as 15),
 * so typos fail instead of meaning something else.
 */

/** Bounds and unit of a numeric value, for both the check and the message. */
export interface NumberRule {
  readonly min: number;
  readonly max: number;
  readonly unit: string;
  /** Whole numbers only (a count). */
  readonly integer?: boolean;
}

const FORM = /^(?:\d+|\d{1,3}(?:([_, ])\d{3})(?:\1\d{3})*)?(?:\.\d*)?$/;

/** The number `text` spells, or undefined when it is not written in one of the accepted forms. */
export function readNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === "" || t === "." || !FORM.test(t)) return undefined;
  const n = Number(t.replace(/[_, ]/g, ""));
  return Number.isFinite(n) ? n : undefined;
}

/** Shows a value as written, without flooding the terminal. */
export function quoteValue(raw: string): string {
  const flat = raw.replace(/\s+/g, " ");
  return JSON.stringify(flat.length > 60 ? `${flat.slice(0, 57)}...` : flat);
}

/** What is wrong with `raw` under `rule` (quoting it as written), or undefined when it is fine. */
export function numberProblem(raw: string, rule: NumberRule): string | undefined {
  const n = readNumber(raw);
  const whole = rule.integer === true;
  if (n !== undefined && (!whole || Number.isInteger(n)) && n >= rule.min && n <= rule.max) return undefined;
  // Someone who grouped the digits wrongly is shown how it is done.
  const hint = /\d[_, ]\d/.test(raw) ? "; digits are grouped in threes, as 2_000_000 or 2,000,000" : "";
  return `bad value ${quoteValue(raw.trim())} (expected ${whole ? "a whole number" : "a number"} of ${rule.unit} from ${fmt(rule.min)} to ${fmt(rule.max)}${hint})`;
}

const fmt = (n: number) => n.toLocaleString("en-US");
