import { deflateRawSync } from 'node:zlib';

/** How a blob is stored (blob-writer.ts packs the same way on its thread). */
export const BLOB_PACKING = { deflateFrom: 4096, level: 1, keepRatio: 0.75 } as const;

/** [zipped, stored]: deflated when that saves a quarter. */
export function packBlob(data: Buffer): [number, Buffer] {
  if (data.length < BLOB_PACKING.deflateFrom) return [0, data];
  const z = deflateRawSync(data, { level: BLOB_PACKING.level });
  return z.length <= data.length * BLOB_PACKING.keepRatio ? [1, z] : [0, data];
}
