import { randomBytes } from "node:crypto";

/** A fresh signed 64-bit MTProto random_id as a decimal string (SQLite-safe, JSON-safe). */
export function newRandomId(): string {
  return randomBytes(8).readBigInt64LE().toString();
}
