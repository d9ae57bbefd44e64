import { FUNCTION_WORDS_EN, FUNCTION_WORDS_ES } from './stopwords.js';

/*
 * The stop words of retrieval's analysis (decisions, D-300): the pipeline's function
 * words, plus the lists of the `stopword` package (v3.1, MIT) that they lack, plus the
 * words a question is wrapped in ("How can I ...", "¿Cómo puedo ...?"). Kept here as
 * word lists rather than as a dependency: they are data, and a change of them is a
 * change of the analyzer (`ANALYZER_ID`), which re-analyses stored chunks.
 */

// What `stopword`'s `eng` and `spa` hold beyond FUNCTION_WORDS_EN / _ES (folded).
const PACKAGE_EN = 'came come get got himself like make might never said since still take way well';
const PACKAGE_ES = 'ti';

// Question words and fillers of both languages: generic, not tuned to any corpus.
const QUESTION_FILLERS =
  'how what which why when where who whom whose can could would should do does did get make want need way ways use using ' +
  'possible anything something someone thing things instead also just still even really without right ' +
  'como que cual cuales por donde cuando quien puedo puede pueden hago hacer haga quiero necesito forma manera usar uso ' +
  'algo alguien cosa cosas mismo tambien solo aun sin bien debo deberia tengo tiene hay';

const ENGLISH: ReadonlySet<string> = new Set([...FUNCTION_WORDS_EN, ...PACKAGE_EN.split(' ')]);
const SPANISH: ReadonlySet<string> = new Set([...FUNCTION_WORDS_ES, ...PACKAGE_ES.split(' ')]);

/** Every stop word of retrieval, folded. */
export const SEARCH_STOPWORDS: ReadonlySet<string> = new Set([...ENGLISH, ...SPANISH, ...QUESTION_FILLERS.split(' ')]);

/** Function words only Spanish writes, folded: the language signal of a block of text. */
export const ONLY_SPANISH: ReadonlySet<string> = new Set([...SPANISH].filter((w) => !ENGLISH.has(w)));

/** Function words only English writes. */
export const ONLY_ENGLISH: ReadonlySet<string> = new Set([...ENGLISH].filter((w) => !SPANISH.has(w)));
