import * as v from 'valibot';
import { maxChars, minChars, shownAs, wellFormed } from './validation.js';

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
  // JSON Schema sees the tag as sent, before the trim: its pattern lets the white space
  // around it through and counts the 40 characters without it (D-1192).
  shownAs({
    type: 'string',
    pattern: `^\\s*(?=[A-Za-z0-9-]{1,${TOPIC_MAX}}\\s*$)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\\s*$`,
    description: `A topic tag: trimmed and lowercased, then 1 to ${TOPIC_MAX} ASCII letters and digits in words joined by single hyphens.`,
  }),
);
