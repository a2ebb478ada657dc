/**
 * The server half of Telegram's 2FA password check (SRP-2048, as Telegram publishes it under
 * "Two-factor authentication"). The emulator stores only the verifier v = g^x mod p, never the
 * password; a login proves knowledge of it with (A, M1), which is checked exactly as Telegram
 * does — so a wrong password fails the M1 comparison, not a string compare.
 */
import { createHash, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";

/** Telegram's published 2048-bit safe prime; GramJS refuses any other byte for byte. */
const P_HEX =
  "c71caeb9c6b1c9048e6c522f70f13f73980d40238e3e21c14934d037563d930f48198a0aa7c14058229493d22530f4db" +
  "fa336f6e0ac925139543aed44cce7c3720fd51f69458705ac68cd4fe6b6b13abdc9746512969328454f18faf8c595f64" +
  "2477fe96bb2a941d5bcd1d4ac8cc49880708fa9b378e3c4f3a9060bee67cf9a4a4a695811051907e162753b56b0f6b41" +
  "0dba74d8a84b2a14b3144e0ef1284754fd17ed950d5965b4b9dd46582db1178d169c6bc465b0d6ff9ca3928fef5b9ae4" +
  "e418fc15e83ebea0f87fa9ff5eed70050ded2849f47bf959d956850ce929851f0d8115f635b105ee2e4e15d04b2454bf" +
  "6f4fadf034b10403119cd8e3b92fcc5b";

/** The prime p as Telegram sends it (256 bytes, big-endian). */
export const SRP_PRIME = Buffer.from(P_HEX, "hex");
/** The generator Telegram uses with this prime. */
export const SRP_G = 3;

const P = BigInt(`0x${P_HEX}`);
const G = BigInt(SRP_G);
/** GramJS's size check on A and g^b: at least 2048 − 64 bits, and as far from p. */
const MIN_BITS = 2048 - 64;

/** What the server keeps for an account's password: salts and the verifier. */
export interface SrpVerifier {
  readonly salt1: Buffer;
  readonly salt2: Buffer;
  readonly v: bigint;
}

/** One login challenge (account.getPassword answer): used for at most one check. */
export interface SrpChallenge {
  readonly srpId: bigint;
  readonly B: Buffer;
  readonly b: bigint;
}

const sha256 = (...parts: Buffer[]): Buffer => createHash("sha256").update(Buffer.concat(parts)).digest();
const toBig = (b: Buffer): bigint => (b.length === 0 ? 0n : BigInt(`0x${b.toString("hex")}`));
const pad256 = (n: bigint): Buffer => Buffer.from(n.toString(16).padStart(512, "0"), "hex");
const bitLength = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}

/** SH(data, salt) = H(salt | data | salt). */
const sh = (data: Buffer, salt: Buffer): Buffer => sha256(salt, data, salt);

/** PH2(password, salt1, salt2): the client-side password hash x. */
function ph2(password: string, salt1: Buffer, salt2: Buffer): Buffer {
  const ph1 = sh(sh(Buffer.from(password, "utf8"), salt1), salt2);
  return sh(pbkdf2Sync(ph1, salt1, 100_000, 64, "sha512"), salt2);
}

const K = toBig(sha256(pad256(P), pad256(G)));

/** Sets a password up: random salts, v = g^PH2(password) mod p. */
export function srpVerifier(password: string): SrpVerifier {
  const salt1 = randomBytes(40);
  const salt2 = randomBytes(16);
  return { salt1, salt2, v: modPow(G, toBig(ph2(password, salt1, salt2)), P) };
}

const goodSize = (n: bigint): boolean =>
  n > 0n && n < P && bitLength(n) >= MIN_BITS && bitLength(P - n) >= MIN_BITS;

/** A fresh challenge: random b, B = (k·v + g^b) mod p, and a new srp_id. */
export function srpChallenge(verifier: SrpVerifier): SrpChallenge {
  for (;;) {
    const b = toBig(randomBytes(256));
    const gb = modPow(G, b, P);
    if (!goodSize(gb)) continue;
    const B = (K * verifier.v + gb) % P;
    if (!goodSize(B)) continue;
    return { srpId: randomBytes(8).readBigInt64BE(0), B: pad256(B), b };
  }
}

/**
 * Checks a client's (A, M1) against a challenge: u = H(A | B), S = (A·v^u)^b, K = H(S),
 * M1 = H(H(p) xor H(g) | H(salt1) | H(salt2) | A | B | K), compared in constant time.
 */
export function srpCheck(
  verifier: SrpVerifier,
  challenge: SrpChallenge,
  aBytes: Buffer,
  m1: Buffer,
): boolean {
  const A = toBig(aBytes);
  if (A <= 0n || A >= P || aBytes.length > 256) return false;
  const aPad = pad256(A);
  const u = toBig(sha256(aPad, challenge.B));
  if (u === 0n) return false;
  const S = modPow((A * modPow(verifier.v, u, P)) % P, challenge.b, P);
  const hp = sha256(pad256(P));
  const hg = sha256(pad256(G));
  const xored = Buffer.from(hp.map((x, i) => x ^ (hg[i] ?? 0)));
  const expected = sha256(
    xored,
    sha256(verifier.salt1),
    sha256(verifier.salt2),
    aPad,
    challenge.B,
    sha256(pad256(S)),
  );
  return m1.length === expected.length && timingSafeEqual(m1, expected);
}
