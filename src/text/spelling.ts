/*
 * British and American spellings of one English word (decisions, D-1048): a user writes
 * "colour", "licence", "customise", "catalogue", "cancelled" where a manual writes
 * "color", "license", "customize", "catalog", "canceled", or the reverse. Snowball's
 * English stemmer keeps the difference (`colour` and `color`, `customis` and `custom`,
 * `cancell` and `cancel`), so the word met nothing. Only the regular endings are mapped;
 * each rule asks for a word long enough that the ending is one (a "tour" is no "tor").
 */

interface Rule {
  /** An ending, anchored; its groups are kept, around the letters changed (`to` puts them back as `$1`, `$2`). */
  from: RegExp;
  to: string;
  /** The shortest word the rule reads. */
  min: number;
}

// Each pattern is a literal ending with one bounded alternation at the end: linear on any word.
const RULES: readonly Rule[] = [
  // colour, behaviour, favourite, colours <-> color, behavior, favorite
  { from: /our(s|ed|ing|ite|ites|able|ful)?$/u, to: 'or$1', min: 6 },
  { from: /or(s|ed|ing|ite|ites|able|ful)?$/u, to: 'our$1', min: 5 },
  // customise, organisation <-> customize, organization
  { from: /is(e|es|ed|ing|er|ers|ation|ations)$/u, to: 'iz$1', min: 6 },
  { from: /iz(e|es|ed|ing|er|ers|ation|ations)$/u, to: 'is$1', min: 6 },
  // analyse <-> analyze
  { from: /ys(e|es|ed|ing|er|ers)$/u, to: 'yz$1', min: 6 },
  { from: /yz(e|es|ed|ing|er|ers)$/u, to: 'ys$1', min: 6 },
  // centre, fibre <-> center, fiber
  { from: /([bct])re(s)?$/u, to: '$1er$2', min: 5 },
  { from: /([bct])er(s)?$/u, to: '$1re$2', min: 5 },
  // catalogue, dialogue <-> catalog, dialog
  { from: /ogue(s)?$/u, to: 'og$1', min: 7 },
  { from: /og(s)?$/u, to: 'ogue$1', min: 6 },
  // licence, defence <-> license, defense
  { from: /ence(s)?$/u, to: 'ense$1', min: 6 },
  { from: /ense(s)?$/u, to: 'ence$1', min: 6 },
  // cancelled, labelling, traveller <-> canceled, labeling, traveler
  { from: /([aeiou])ll(ed|ing|er|ers)$/u, to: '$1l$2', min: 7 },
  { from: /([^aeiou][aeiou])l(ed|ing|er|ers)$/u, to: '$1ll$2', min: 6 },
];

/**
 * The other spellings of a lowercase English `word` (British for American and the
 * reverse), by regular endings: "colour" gives "color", "customize" gives "customise",
 * "cancelled" gives "canceled". Empty for a word no rule reads.
 */
export function otherSpellings(word: string): string[] {
  const out: string[] = [];
  for (const rule of RULES) {
    if (word.length < rule.min || !rule.from.test(word)) continue;
    const other = word.replace(rule.from, rule.to);
    if (other !== word && !out.includes(other)) out.push(other);
  }
  return out;
}
