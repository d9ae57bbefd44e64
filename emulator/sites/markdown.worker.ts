import { workerTask } from '../../src/platform/worker-task.js';
import { firstHeading, renderMarkdown } from './markdown.js';

/** The hosted sites' worker module: Markdown rendering and sanitising grow with the page. */
export const render = workerTask((markdown: string) => renderMarkdown(markdown));

/** The first heading of a rendered page body (D-1202): reading the HTML grows with the page too. */
export const heading = workerTask((html: string) => firstHeading(html));
