import * as v from 'valibot';
import { maxChars, minChars, wellFormed } from './validation.js';

const TOPIC_MAX = 40;

/**
 * One topic tag as a client sends it (CONTRACT, Conventions; decisions, D-137): trimmed, 1 to 40
 * characters, lowercased, `^[a-z0-9]+(-[a-z0-9]+)*$`. The shape is checked in ASCII
 * before lowercasing, as for slugs and page paths: some other letters lowercase into
 * ASCII ones (U+212A KELVIN SIGN into `k`), and a look-alike must not become a tag.
 */
export const TopicSchema = v.pipe(
  v.string(),
  wellFormed(),
  v.trim(),
  minChars(1, `must be 1 to ${TOPIC_MAX} characters`),
  maxChars(TOPIC_MAX, `must be 1 to ${TOPIC_MAX} characters`),
  v.regex(/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/, 'must be ASCII letters and digits in words joined by single hyphens'),
  v.toLowerCase(),
);
