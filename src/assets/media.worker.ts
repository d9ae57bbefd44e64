import { workerTask } from '../platform/worker-task.js';
import { inspectMedia } from './media.js';

/** The assets part's worker module: media probes decode the whole file. */
export const inspect = workerTask((bytes: Uint8Array) => inspectMedia(bytes));
