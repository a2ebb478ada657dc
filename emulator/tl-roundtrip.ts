/**
 * strictTl mode: push requests, results and delivered updates through TL bytes and back, the way
 * a real connection would. Proves the emulator's answers are valid TL (it is how we learned that
 * messages.ChannelMessages needs `topics`), at about 3× the cost — so it is opt-in.
 */
import type { Api } from "telegram";
import { BinaryReader } from "telegram/extensions/index.js";

const VECTOR_ID = 0x1cb5c415;
const BOOL_TRUE = 0x997275b5;
const BOOL_FALSE = 0xbc799737;

interface Serialisable {
  getBytes(): Buffer;
}

/** Reads a request back from the bytes GramJS serialised it to. */
export function roundTripRequest(request: Api.AnyRequest): Api.AnyRequest {
  const read: unknown = new BinaryReader(request.getBytes()).tgReadObject();
  if (!isTlObject(read) || read.className !== request.className) {
    throw new Error(`strictTl: ${request.className} did not survive serialisation`);
  }
  return read as Api.AnyRequest;
}

/** Serialises a method result and parses it with the request's own `readResult`. */
export function roundTripResult(request: Api.AnyRequest, result: unknown): unknown {
  // readResult exists on every generated request class; GramJS's typings only omit it.
  const reader = new BinaryReader(resultBytes(result));
  return (request as unknown as { readResult(r: BinaryReader): unknown }).readResult(reader);
}

/** Serialises any boxed TL object (e.g. delivered Api.Updates) and reads it back. */
export function roundTripObject<T extends Serialisable>(obj: T): T {
  return new BinaryReader(obj.getBytes()).tgReadObject() as T;
}

function resultBytes(result: unknown): Buffer {
  if (typeof result === "boolean") return int32(result ? BOOL_TRUE : BOOL_FALSE);
  if (Array.isArray(result)) {
    const items = result.map((x: unknown) => {
      if (typeof x === "number") return int32(x);
      if (isSerialisable(x)) return x.getBytes();
      throw new Error(`strictTl: cannot serialise vector item ${String(x)}`);
    });
    return Buffer.concat([int32(VECTOR_ID), int32(result.length), ...items]);
  }
  if (isSerialisable(result)) return result.getBytes();
  throw new Error(`strictTl: cannot serialise result ${String(result)}`);
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0, 0);
  return b;
}

function isSerialisable(x: unknown): x is Serialisable {
  return typeof x === "object" && x !== null && typeof (x as Partial<Serialisable>).getBytes === "function";
}

function isTlObject(x: unknown): x is { className: string } {
  return typeof x === "object" && x !== null && typeof (x as { className?: unknown }).className === "string";
}
