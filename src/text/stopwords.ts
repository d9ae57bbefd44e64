import { fold } from './words.js';

/**
 * Words that say nothing about a subject. Two lists exist on purpose (decisions,
 * D-151): the function words of the knowledge pipeline (language detection,
 * the embedder, index cards, full-text queries), and the chat's stop words, which add
 * what people type around a question (`please`, `hola`, `quiero saber`). Both are
 * folded. Merging them would move every stored vector and chat answer.
 */

export const FUNCTION_WORDS_EN: ReadonlySet<string> = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having he her here hers him his how i if in ' +
    'into is it its itself just me more most my no nor not now of off on once only or other our ours out over own same she ' +
    'should so some such than that the their theirs them then there these they this those through to too under until up us ' +
    'very was we were what when where which while who whom why will with would you your yours yourself every within ' +
    'without upon across per via also may must shall can cannot many much another others whether either neither'
  ).split(' '),
);

// Folded (no accents), as `words()` yields them.
export const FUNCTION_WORDS_ES: ReadonlySet<string> = new Set(
  (
    'a al algo algunas algunos ante antes como con contra cual cuales cuando de del desde donde dos el ella ellas ellos en ' +
    'entre era eran es esa esas ese eso esos esta estaba estan estar estas este esto estos fue fueron ha habia han hasta hay ' +
    'la las le les lo los mas me mi mis mucho muy nada ni no nos nosotros o os otra otras otro otros para pero poco por ' +
    'porque que quien se sea segun ser si sido sin sobre son su sus tambien te tiene tienen todo todos tu tus un una unas ' +
    'uno unos usted ustedes y ya yo cada cualquier durante tras mediante puede pueden debe deben cuanto cuanta'
  ).split(' '),
);

/** True for a folded word that carries no topic in either language (a function word). */
export function isFunctionWord(folded: string): boolean {
  return FUNCTION_WORDS_EN.has(folded) || FUNCTION_WORDS_ES.has(folded);
}

// Numbers, days, months and currencies say when and how much, never what a document covers.
const CALENDAR: ReadonlySet<string> = new Set(
  (
    'one two three four five six seven eight nine ten eleven twelve twenty thirty hundred thousand dos tres cuatro ' +
    'cinco seis siete ocho nueve diez once doce veinte treinta cien mil ' +
    'euro euros dollar dollars pound pounds cent cents peso pesos minute minutes hour hours days week weeks month ' +
    'months year years minuto minutos hora horas dias semana semanas meses anos monday tuesday wednesday thursday friday saturday sunday january february march april may june july august ' +
    'september october november december lunes martes miercoles jueves viernes sabado domingo enero febrero marzo ' +
    'abril mayo junio julio agosto septiembre octubre noviembre diciembre'
  ).split(' '),
);

/** True for a folded word that names no subject (numbers, days, months, currencies), in either language. */
export function isCalendarWord(folded: string): boolean {
  return CALENDAR.has(folded);
}

const CHAT_EN =
  'a an the and or but if then so of to in on at by for with without within from about into over after before under between per via ' +
  'is are was were be been being am do does did have has had having can could will would shall should may might must ' +
  'i me my we our us you your he him his she her it its they them their this that these those there here ' +
  'what which who whom whose when where why how all any both each few more most other some such no nor not only own same ' +
  'than too very just also as up out off again further once please tell know want need like get got let lets ' +
  'hi hello thanks thank ok okay yes';

const CHAT_ES =
  'el la los las un una unos unas y o u e ni pero si sino que de del al a en por para con sin sobre entre hasta desde ' +
  'es son era eran ser fue fueron está están estar estoy estás hay ha han he has haber tiene tienen tener tengo ' +
  'puede pueden puedo puedes podéis podemos podría hacer hace hago hacéis tenéis tenemos tienes se me te le les nos os lo mi mis tu tus su sus nuestro nuestra vuestro vuestra vuestros vuestras ' +
  'yo tú él ella ellos ellas usted ustedes este esta estos estas ese esa esos esas eso esto aquí allí ' +
  'qué cuál cuáles quién quiénes cuándo dónde cómo cuánto cuánta cuántos cuántas por qué muy más menos también ' +
  'ya no sí como cuando donde porque todo toda todos todas algo alguno alguna otro otra otros otras mismo ' +
  'hola gracias favor quiero quisiera saber decir dime necesito';

/** The chat's stop words of both languages, folded: function words and the words around a question. */
export const CHAT_STOPWORDS: ReadonlySet<string> = new Set(fold(`${CHAT_EN} ${CHAT_ES}`).split(' '));

/** True for a word (any case and accents) the chat's retrieval terms leave out. */
export function isChatStopword(word: string): boolean {
  return CHAT_STOPWORDS.has(fold(word));
}
