/**
 * The one registry of the failure codes a knowledge source can end with (its `error`,
 * API.md States and transitions), beside the registry of problem codes: a failed
 * ingestion is not an HTTP answer but the state of a source, so its codes are plain
 * words rather than `svc.*` codes. Nothing else in the code base spells one
 * (decisions, D-157).
 */

/** The address classes a fetch refuses (CONTRACT, Knowledge), as in `fetch_blocked_address:<class>`. */
export const BLOCKED_ADDRESS_CLASSES = [
  'loopback',
  'private',
  'link_local',
  'unique_local',
  'carrier_grade_nat',
  'multicast',
  'unspecified',
  'reserved',
] as const;
export type BlockedClass = (typeof BLOCKED_ADDRESS_CLASSES)[number];

/** The base codes API.md names, with what each means. */
export const INGEST_FAILURES = {
  unsupported_document: 'The document cannot be read: an unknown format or content type, or no readable text.',
  ingest_failed: 'The pipeline failed: an HTTP error, a bad or endless redirect, a missing stored document.',
  fetch_timeout: 'Fetching the URL took longer than the fetch timeout (all redirect hops together).',
  fetch_dns_failed: 'The host name of the URL does not resolve.',
  fetch_response_too_large: 'The response is larger than the fetch limit (5 MB).',
} as const;
export type IngestFailureBase = keyof typeof INGEST_FAILURES;

/**
 * The reasons a source fails on a limit, in the API's colon convention: a client that
 * knows only the base codes (`ingest_failed`, `unsupported_document`) still reads them.
 */
export const LIMIT_FAILURES = {
  /** Extraction ran over the per-task time limit of the worker pool. */
  timeLimit: 'ingest_failed:time_limit',
  /** Extraction ran over the worker's heap or buffer limit (a decompression bomb). */
  memoryLimit: 'ingest_failed:memory_limit',
  /** A PDF of more than `MAX_PDF_PAGES` pages. */
  tooManyPages: 'unsupported_document:too_many_pages',
  /** More than `MAX_TEXT_CHARS` characters of text extracted. */
  tooMuchText: 'unsupported_document:too_much_text',
} as const;
export type LimitFailure = (typeof LIMIT_FAILURES)[keyof typeof LIMIT_FAILURES];

/** Every code a source may fail with. */
export type IngestFailureCode = IngestFailureBase | `fetch_blocked_address:${BlockedClass}` | LimitFailure;

const BASES = Object.keys(INGEST_FAILURES) as IngestFailureBase[];

/** Every code, in registry order. */
export const INGEST_FAILURE_CODES: readonly IngestFailureCode[] = [
  ...BASES,
  ...BLOCKED_ADDRESS_CLASSES.map((c) => `fetch_blocked_address:${c}` as const),
  ...Object.values(LIMIT_FAILURES),
];

/**
 * The codes the control plane's `ingest` fault may queue: the base and blocked-address
 * codes, which is what a client meets whatever limits the deployment sets.
 */
export const INJECTABLE_INGEST_FAILURE = new RegExp(`^(${BASES.join('|')}|fetch_blocked_address:(${BLOCKED_ADDRESS_CLASSES.join('|')}))$`);

/** True when `value` is a registered ingestion failure code. */
export function isIngestFailureCode(value: unknown): value is IngestFailureCode {
  return typeof value === 'string' && (INGEST_FAILURE_CODES as readonly string[]).includes(value);
}
