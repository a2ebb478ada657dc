/**
 * Access hashes for emulated users, channels and documents.
 */

/** A deterministic, safe-integer access hash: repeatable runs make failures reproducible. */
export function accessHashFor(id: number, salt: number): number {
  return Number((BigInt(id) * 0x9e3779b97f4a7c15n + BigInt(salt)) % 0x1fffffffffffffn);
}
