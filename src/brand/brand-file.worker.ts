import { sha256Hex } from '../platform/crypto.js';
import { movable } from '../platform/worker-pool.js';
import { workerTask } from '../platform/worker-task.js';
import { inspectBrandFile } from './brand-file.js';
import type { BrandSlot } from './brand.schema.js';

/**
 * The brand part's worker module: the SVG guard and the image decoders; the hash reads
 * the file too. The bytes were moved here, so they go back with the answer.
 */
export const inspect = workerTask(
  async (input: { slot: BrandSlot; bytes: Uint8Array }) => ({
    contentType: await inspectBrandFile(input.slot, input.bytes),
    sha256: sha256Hex(input.bytes),
    bytes: input.bytes,
  }),
  { handBack: (value) => movable(value.bytes) },
);
