import { describe, expect, it } from "vitest";
import { oggCrc } from "../../src/media/ogg-opus";

describe("Ogg's page checksum", () => {
  // CRC-32 with polynomial 0x04C11DB7, not reflected, initial value 0, no final XOR (RFC 3533 §6,
  // libogg's framing.c). The CRC catalogue's CRC-32/CKSUM is the same with a final XOR of
  // 0xFFFFFFFF and checks "123456789" as 0x765E7680, so Ogg's is 0x765E7680 ^ 0xFFFFFFFF =
  // 0x89A1897F. Also computed bit by bit here, apart from the table the encoder uses.
  const bitwise = (bytes: Uint8Array): number => {
    let crc = 0;
    for (const b of bytes) {
      crc ^= b << 24;
      for (let i = 0; i < 8; i++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
    }
    return crc >>> 0;
  };

  it('"123456789" gives the known answer 0x89A1897F', () => {
    const check = Buffer.from("123456789", "latin1");
    expect(bitwise(check)).toBe(0x89a1897f);
    expect(oggCrc(check)).toBe(0x89a1897f);
  });

  it("agrees with the bitwise definition on every byte value", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(oggCrc(all)).toBe(bitwise(all));
  });
});
