import { FUNCTION_WORDS_EN, FUNCTION_WORDS_ES } from './stopwords.js';

/*
 * The stop words of retrieval's analysis (decisions, D-760): exactly the English and
 * Spanish lists of the `stopword` package (v3.1.5, MIT), the lists the BM25 baseline of
 * `bench/relevance` removes, lowercase with their accents. Kept here as word lists
 * rather than as a dependency: they are data, and a change of them is a change of the
 * analyzer (`ANALYZER_ID`), which re-analyses stored chunks. Question fillers ("use",
 * "need", "puedo") are not stop words: removing them won on two corpora and lost on
 * the development set (bench/relevance/README.md).
 */

const STOPWORD_EN =
  'about after all also am an and another any are as at be because been before being between both but by came can come ' +
  'could did do each for from get got has had he have her here him himself his how if in into is it like make many me ' +
  'might more most much must my never now of on only or other our out over said same should since some still such take ' +
  'than that the their them then there these they this those through to too under up very was way we well were what where ' +
  'which while who with would you your a i';
const STOPWORD_ES =
  'a un el ella y sobre de la que en los del se las por para con no una su al lo como más pero sus le ya o porque cuando ' +
  'muy sin también me hasta donde quien desde nos durante uno ni contra ese eso mí qué otro él cual poco mi tú te ti sí';

/** Every stop word of retrieval, lowercase with its accents (as `accentedWords` yields words). */
export const SEARCH_STOPWORDS: ReadonlySet<string> = new Set([...STOPWORD_EN.split(' '), ...STOPWORD_ES.split(' ')]);

// The language signal of a block: the pipeline's function words, plus what the
// `stopword` lists hold beyond them (folded).
const PACKAGE_EN = 'came come get got himself like make might never said since still take way well';
const PACKAGE_ES = 'ti';

const ENGLISH: ReadonlySet<string> = new Set([...FUNCTION_WORDS_EN, ...PACKAGE_EN.split(' ')]);
const SPANISH: ReadonlySet<string> = new Set([...FUNCTION_WORDS_ES, ...PACKAGE_ES.split(' ')]);

// Words questions are put in, of both languages: generic, not tuned to any corpus.
const QUESTION_FILLERS =
  'how what which why when where who whom whose can could would should do does did get make want need way ways use using ' +
  'possible anything something someone thing things instead also just still even really without right ' +
  'como que cual cuales por donde cuando quien puedo puede pueden hago hacer haga quiero necesito forma manera usar uso ' +
  'algo alguien cosa cosas mismo tambien solo aun sin bien debo deberia tengo tiene hay';
// English contractions (D-1052): the pieces an apostrophe leaves ("we're": `we`, `re`;
// "shouldn't": `shouldn`, `t`) and the same words typed without it ("dont", "im"). Grammar,
// never a subject. Left out where the bare form is a word of its own: ill, id, well, wed, hell, shell.
const CONTRACTIONS =
  'don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn mustn needn shan ll ve re ' +
  'dont doesnt didnt isnt arent wasnt werent hasnt havent hadnt wont wouldnt shouldnt couldnt mustnt neednt cant ' +
  'im ive youre youve youll youd theyre theyve theyll weve thats whats wheres hows theres heres lets';
// How people write in a chat box (D-1053): "thanks", "hola", "pls", "btw", "xq", "porfa",
// and how they press (D-1061): "urgent", "asap", "gracias de antemano". A courtesy, a
// shorthand for a function word or a plea, never a subject. Left out where the letters
// name a thing too: bc (the calculator), pf (the packet filter), np, ok.
const CHAT_WORDS =
  'please thanks thank hello hi hey cheers pls plz plox thx thnx thanx tks ty btw fyi imo imho afaik iirc idk tbh rn ur cuz coz urgent urgently asap ' +
  'gracias hola saludos antemano urgente urgentemente ' +
  'xq pq porq xfa porfa tb tmb tambn grax grcs';
/**
 * Words a greeting is made of, folded ("hi", "hello", "buenos días", "good morning"
 * without its "good"): the chat greets back a message of them (D-101), and retrieval
 * reads a name right after one as the person spoken to (D-1063).
 */
export const GREETING_WORDS: ReadonlySet<string> = new Set(
  'hi hello hey hola buenas buenos dias tardes noches morning afternoon evening saludos greetings'.split(' '),
);
/** Words that thank, folded: the chat answers a message of them (D-1066); a name right after one is who is thanked (D-1063). */
export const THANKING_WORDS: ReadonlySet<string> = new Set('thanks thank cheers gracias'.split(' '));
const QUESTION_WORDS: ReadonlySet<string> = new Set([
  ...ENGLISH,
  ...SPANISH,
  ...QUESTION_FILLERS.split(' '),
  ...CONTRACTIONS.split(' '),
  ...CHAT_WORDS.split(' '),
]);

/** The longest word `isQuestionWord` knows: a slip of the keyboard changes a word's length by one letter at most (D-1069). */
export const LONGEST_QUESTION_WORD = Math.max(...[...QUESTION_WORDS].map((w) => w.length));

/**
 * True for a folded word that names no subject: a function word of either language, a
 * word questions are put in ("whether", "how", "cómo", "puedo"), a piece of an English
 * contraction ("re", "shouldn", "dont"), a chat shorthand ("pls", "btw", "xq"), or a
 * single letter.
 * Retrieval ranks with such words (a plain BM25 keeps them); the confidence does not
 * count them as evidence either way (D-762).
 */
export function isQuestionWord(folded: string): boolean {
  return QUESTION_WORDS.has(folded) || (folded.length === 1 && !(folded >= '0' && folded <= '9'));
}

/** Function words only Spanish writes, folded: the language signal of a block of text. */
export const ONLY_SPANISH: ReadonlySet<string> = new Set([...SPANISH].filter((w) => !ENGLISH.has(w)));

/** Function words only English writes. */
export const ONLY_ENGLISH: ReadonlySet<string> = new Set([...ENGLISH].filter((w) => !SPANISH.has(w)));
