import { sha256Hex } from '../platform/crypto.js';
import { movable } from '../platform/worker-pool.js';
import { workerTask } from '../platform/worker-task.js';
import { inspectMedia } from './media.js';

/**
 * The assets part's worker module: media probes decode the whole file; the hash reads
 * it all too. The bytes were moved here, so they go back with the answer.
 */
export const inspect = workerTask(async (bytes: Uint8Array) => ({ media: await inspectMedia(bytes), sha256: sha256Hex(bytes), bytes }), {
  handBack: (value) => movable(value.bytes),
});
