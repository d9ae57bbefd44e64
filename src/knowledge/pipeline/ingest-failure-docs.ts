import { BLOCKED_ADDRESS_CLASSES, LIMIT_FAILURES, type IngestFailureCode } from '../../platform/ingest-failures.js';
import { MAX_PDF_PAGES, MAX_TEXT_CHARS } from './ingest-error.js';

/** What the error reference says about a failed source. */
export interface IngestFailureDoc {
  when: string;
  fix: string;
}

/** An integer with thousands separators (`100,000`), without Intl: its first use costs ~50 ms of every start. */
function n(value: number): string {
  const digits = String(value);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (i > 0 && (digits.length - i) % 3 === 0 ? ',' : '') + digits[i];
  return out;
}

/**
 * The reference text of every code a source can fail with (it is not a problem: the add
 * was accepted, and the source moved to `status: failed` later). The blocked-address
 * codes share one entry, keyed by their prefix.
 */
export const INGEST_FAILURE_DOCS: Record<Exclude<IngestFailureCode, `fetch_blocked_address:${string}`> | 'fetch_blocked_address', IngestFailureDoc> = {
  unsupported_document: {
    when: 'The document could not be read: a content type the pipeline does not read, an unreadable PDF, invalid JSON, or no readable text at all.',
    fix: 'Upload the content as text, Markdown, HTML, CSV, JSON or PDF with readable text.',
  },
  [LIMIT_FAILURES.tooManyPages]: {
    when: `A PDF of more than ${n(MAX_PDF_PAGES)} pages.`,
    fix: 'Split the PDF into smaller documents.',
  },
  [LIMIT_FAILURES.tooMuchText]: {
    when: `More than ${n(MAX_TEXT_CHARS)} characters of text were extracted.`,
    fix: 'Split the document into smaller ones.',
  },
  ingest_failed: {
    when: 'Ingestion failed for another reason: the page answered an HTTP error, more than 5 redirects, a redirect to a forbidden address, or the stored document is gone.',
    fix: 'Check that the address answers 200 to a plain GET, then add the source again.',
  },
  [LIMIT_FAILURES.timeLimit]: {
    when: 'Reading the document ran over the time limit of a worker thread.',
    fix: 'Send a simpler or smaller document.',
  },
  [LIMIT_FAILURES.memoryLimit]: {
    when: 'Reading the document ran over the memory limit of a worker thread (a decompression bomb, for one).',
    fix: 'Send a simpler or smaller document.',
  },
  fetch_timeout: {
    when: 'The page did not answer within 10 s.',
    fix: 'Check that the site is up, then add the source again.',
  },
  fetch_dns_failed: {
    when: 'The host name does not resolve. The emulator fetches from its offline web by default, where an unregistered name does not resolve.',
    fix: 'Check the address. In the emulator, register the page with `PUT /_emulator/web`, or start it with `--live-fetch`.',
  },
  fetch_response_too_large: {
    when: 'The body of the page is over 5 MiB.',
    fix: 'Point at a smaller page.',
  },
  fetch_blocked_address: {
    when: `The name resolved, or a redirect led, to an address in a blocked class; the code ends with the class: ${BLOCKED_ADDRESS_CLASSES.map((c) => `\`${c}\``).join(', ')}.`,
    fix: 'Use an address that resolves to a public IP.',
  },
};
