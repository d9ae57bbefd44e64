/**
 * Word-level helpers shared by language detection, the embedder, the summary and the
 * lexical query: one normalisation so that every step agrees on what a word is.
 */

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lowercase without diacritics (`Canción` → `cancion`), the form words are compared in. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** The words of `text` as written (letters and digits), in order. */
export function rawWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The folded words of `text`, in order. */
export function words(text: string): string[] {
  return fold(text).match(WORD) ?? [];
}

/** A crude plural strip shared by English and Spanish (`precios` → `precio`, `prices` → `price`). */
export function stem(word: string): string {
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export const STOPWORDS_EN: ReadonlySet<string> = new Set(
  ('a about above after again all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers him his how i if in ' +
    'into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she ' +
    'should so some such than that the their theirs them then there these they this those through to too under until up us ' +
    'very was we were what when where which while who whom why will with would you your yours yourself every within ' +
    'without upon across per via also may must shall can cannot many much another others whether either neither').split(' '),
);

// Folded (no accents), as `words()` yields them.
export const STOPWORDS_ES: ReadonlySet<string> = new Set(
  ('a al algo algunas algunos ante antes como con contra cual cuales cuando de del desde donde dos el ella ellas ellos en ' +
    'entre era eran es esa esas ese eso esos esta estaba estan estar estas este esto estos fue fueron ha habia han hasta hay ' +
    'la las le les lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra otras otro otros para pero poco por ' +
    'porque que quien se sea segun ser si sido sin sobre son su sus tambien te tiene tienen todo todos tu tus un una unas ' +
    'uno unos usted ustedes y ya yo cada cualquier durante tras mediante puede pueden debe deben cuanto cuanta').split(' '),
);

// Numbers, days, months and currencies say when and how much, never what a document covers.
const CALENDAR: ReadonlySet<string> = new Set(
  ('one two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand dos tres cuatro ' +
    'cinco seis siete ocho nueve diez once doce veinte treinta cien mil ' +
    'euro euros dollar dollars pound pounds cent cents peso pesos minute minutes hour hours days week weeks month ' +
    'months year years minuto minutos hora horas dias semana semanas meses anos monday tuesday wednesday thursday friday saturday sunday january february march april may june july august ' +
    'september october november december lunes martes miercoles jueves viernes sabado domingo enero febrero marzo ' +
    'abril mayo junio julio agosto septiembre octubre noviembre diciembre').split(' '),
);

/** True for a word that names no subject (numbers, days, months, currencies), in either language. */
export function isCalendarWord(folded: string): boolean {
  return CALENDAR.has(folded);
}

/** True for a word that carries no topic in either language. */
export function isStopword(folded: string): boolean {
  return STOPWORDS_EN.has(folded) || STOPWORDS_ES.has(folded);
}
