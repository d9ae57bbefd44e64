import { workerTask } from '../platform/worker-task.js';
import { inspectBrandFile } from './brand-file.js';
import type { BrandSlot } from './brand.schema.js';

/** The brand part's worker module: the SVG guard and the image decoders. */
export const inspect = workerTask((input: { slot: BrandSlot; bytes: Uint8Array }) => inspectBrandFile(input.slot, input.bytes));
