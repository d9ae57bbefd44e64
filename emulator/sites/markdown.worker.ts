import { workerTask } from '../../src/platform/worker-task.js';
import { firstHeading, renderMarkdown } from './markdown.js';

/** The hosted sites' worker module: Markdown rendering and sanitising grow with the page. */
export const render = workerTask((markdown: string) => renderMarkdown(markdown));

/** A page body's first heading as its rendered page shows it (D-1202). */
export const heading = workerTask(async (markdown: string) => firstHeading(await renderMarkdown(markdown)));
