import { workerTask } from '../../src/platform/worker-task.js';
import { renderMarkdown } from './markdown.js';

/** The hosted sites' worker module: Markdown rendering and sanitising grow with the page. */
export const render = workerTask((markdown: string) => renderMarkdown(markdown));
