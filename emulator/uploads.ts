/**
 * Files accounts upload in parts (upload.saveFilePart) and then send (an InputMediaUploaded*
 * naming the upload's id and part count): the parts kept per account, the file assembled when a
 * send names it — every part 0…parts−1 there (FILE_PART_<n>_MISSING otherwise), each but the last
 * of a regular size (FILE_PART_SIZE_INVALID). Then the upload is used up, as Telegram's are.
 */
import { RpcFault } from "./rpc-fault";
import type { World } from "./world";

interface Upload {
  readonly parts: Map<number, { readonly bytes: Buffer; readonly regular: boolean }>;
}

/** One account's uploads. */
export class Uploads {
  private readonly byId = new Map<string, Upload>();
  savePart(id: string, part: number, bytes: Buffer, regular: boolean): void {
    let u = this.byId.get(id);
    if (!u) {
      u = { parts: new Map() };
      this.byId.set(id, u);
    }
    u.parts.set(part, { bytes, regular });
  }

  /** The whole file of upload `id` in `parts` parts (throws Telegram's error when it is incomplete). */
  take(id: string, parts: number): Buffer {
    const u = this.byId.get(id);
    if (!u || parts <= 0) throw new RpcFault("FILE_PARTS_INVALID");
    const chunks: Buffer[] = [];
    for (let i = 0; i < parts; i++) {
      const p = u.parts.get(i);
      if (!p) throw new RpcFault(`FILE_PART_${i}_MISSING`);
      if (i < parts - 1 && !p.regular) throw new RpcFault("FILE_PART_SIZE_INVALID");
      chunks.push(p.bytes);
    }
    this.byId.delete(id);
    return Buffer.concat(chunks);
  }
}

const store = new WeakMap<World, Map<number, Uploads>>();

/** The uploads of account `accountId` in `world`. */
export function uploadsOf(world: World, accountId: number): Uploads {
  let m = store.get(world);
  if (!m) {
    m = new Map();
    store.set(world, m);
  }
  let u = m.get(accountId);
  if (!u) {
    u = new Uploads();
    m.set(accountId, u);
  }
  return u;
}
