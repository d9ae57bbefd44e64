/**
 * What kind of answer a question asks for, and how a sentence that gives one looks: a
 * question that asks "where" is answered by an address, "when" by hours or days, "how
 * much" by an amount, "phone" by a number, "how long" by a duration. The extractive
 * responder favours such sentences, which often share no word with the question
 * ("Where is it?" / "Calle de Sueca 21.").
 */
interface AnswerType {
  asks: RegExp;
  answers: RegExp;
}

const ANSWER_TYPES: AnswerType[] = [
  {
    asks: /\b(where|address|located|location|d[oó]nde|direcci[oó]n|ubicad[oa]s?|ubicaci[oó]n)\b/i,
    answers: /\b(calle|c\/|plaza|avenida|avda|paseo|passeig|carrer|camino|street|avenue|road|square|lane)\b/i,
  },
  {
    asks: /\b(when|what time|hours|opening|open|close|closed|cu[aá]ndo|a qu[eé] hora|horarios?|abr[eií]s?|abren|cierra|cierran|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekends?|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bados?|domingos?|festivos?)\b/i,
    answers:
      /\b\d{1,2}[:.]\d{2}\b|\b(mondays?|tuesdays?|wednesdays?|thursdays?|fridays?|saturdays?|sundays?|weekdays|weekends?|lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bados?|domingos?|festivos)\b/i,
  },
  {
    asks: /\b(how much|price|prices|cost|costs|fee|fees|cu[aá]nto cuesta|cu[aá]nto vale|cu[aá]nto es|precios?|cuesta|tarifas?)\b/i,
    answers: /\d+(?:[.,]\d+)?\s?(?:€|euros?\b|eur\b|\$|usd\b|d[oó]lares\b|dollars?\b)|(?:€|\$)\s?\d+/i,
  },
  {
    asks: /\b(phone|telephone|call|tel[eé]fono|llamar)\b/i,
    answers: /\+?\d[\d\s-]{6,}\d/,
  },
  {
    asks: /\b(how long|how many (?:days|hours|minutes)|cu[aá]nto tarda|cu[aá]nto tiempo|plazo)\b/i,
    answers: /\b\d+\s?(?:(?:-|to|a)\s?\d+\s?)?(minutes?|hours?|days?|weeks?|minutos?|horas?|d[ií]as?|semanas?)\b/i,
  },
];

/** The sentence shapes that would answer `question`, or none when it asks for no particular kind. */
export function expectedAnswers(question: string): RegExp[] {
  return ANSWER_TYPES.filter((t) => t.asks.test(question)).map((t) => t.answers);
}
