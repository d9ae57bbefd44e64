/*
 * Links pasted into a question (decisions, D-1065): "I read https://wiki.debian.org/FAQ
 * but it did not help". A link points at where the user looked; its words (`https`,
 * `wiki`, `debian`, `org`, `faq`) are the site's, not the question's, and knowledge that
 * quotes many links ranks its lists of links first. A link is cited, not asked about.
 */

// A scheme's link, or one starting at "www.", up to the next white space: linear on any input.
const LINK = /\b(?:https?|ftp):\/\/\S+|\bwww\.\S+/giu;

/**
 * `text` without its links (each replaced by a space), or `text` itself when nothing but
 * links is left: a question that is only a link is asked by the link's words.
 */
export function withoutLinks(text: string): string {
  if (!text.includes('://') && !/www\./iu.test(text)) return text;
  const rest = text.replace(LINK, ' ');
  return /[\p{L}\p{N}]/u.test(rest) ? rest : text;
}
