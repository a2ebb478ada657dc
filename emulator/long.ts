/**
 * Conversions between the emulator's plain-number ids and GramJS's big-integer TL longs.
 */
import { returnBigInt } from "telegram/Helpers.js";

/** GramJS's representation of a TL `long` (a big-integer instance). */
export type Long = ReturnType<typeof returnBigInt>;

/** A TL long from a safe integer. */
export function toLong(n: number): Long {
  return returnBigInt(n);
}

/** A safe integer from a TL long; ids in the emulator stay below 2^40, hash values below 2^53. */
export function fromLong(v: Long | number | string): number {
  return typeof v === "number" ? v : Number(v.toString());
}
