/*
 * What a mail client or a phone adds to a message (decisions, D-1067): "Sent from my
 * iPhone", "Get Outlook for Android", "Enviado desde mi Samsung", everything under a
 * signature delimiter ("-- ", RFC 3676 section 4.3), and "Re: " or "Fwd: " before a
 * subject. A question forwarded from a mailbox carries them; their words name the user's
 * device or mail client, never the subject, and a device the knowledge never mentions
 * reads as a name it lacks.
 */

// The signature delimiter: a line of two hyphens, with or without its trailing space.
const SIGNATURE = /\n--[ \t]?\r?\n/u;
// A client's footer line: "Sent from/with/via/using ...", "Get Outlook for ...", and the
// same in Spanish, French, Italian, German and Portuguese as those clients write them.
// Anchored, no nested repetition: linear on any line.
const FOOTER =
  /^(?:(?:sent|enviado|enviada|envoy[ée]|inviato|gesendet)\s+(?:from|with|via|using|desde|con|de|da|von|mit|do)\s|(?:get|obtener|descargar|obtenez|holen sie sich)\s+outlook\s)/iu;
// A reply's or a forward's mark before a subject line ("Re: ", "Fwd: ", "RV: ", "AW: "),
// repeated as threads grow: a run of short words each with its colon, linear.
const REPLY_MARKS = /^\s*(?:(?:re|fwd?|rv|aw|tr)\s*:\s*)+/iu;
/** The most lines a signature under its delimiter has. */
const MAX_SIGNATURE_LINES = 6;
/** A footer is one short line: a sentence of the question is longer or not last. */
const MAX_FOOTER_WORDS = 10;

/**
 * `text` without what a mail client added: the marks of a reply or a forward before it
 * ("Re: ", "Fwd: "), everything from a signature delimiter on, then a last line written as
 * a client's footer ("Sent from my iPhone") when another line is before it. `text` itself
 * when nothing is left or nothing was added.
 */
export function withoutMailMarks(text: string): string {
  let rest = text.replace(REPLY_MARKS, '');
  const delimiter = SIGNATURE.exec(rest);
  // A signature is a few lines that ask nothing (RFC 3676 suggests four at most); a line
  // of two hyphens with more under it is something pasted (grep's separator between matches).
  if (delimiter) {
    const signature = rest.slice(delimiter.index + delimiter[0].length);
    const lines = signature.split('\n').filter((line) => line.trim()).length;
    if (!signature.includes('?') && lines <= MAX_SIGNATURE_LINES) rest = rest.slice(0, delimiter.index);
  }
  const lines = rest.trimEnd().split('\n');
  const last = lines.at(-1)!.trim();
  if (lines.length >= 2 && FOOTER.test(last) && last.split(/\s+/u).length <= MAX_FOOTER_WORDS) rest = lines.slice(0, -1).join('\n');
  return /[\p{L}\p{N}]/u.test(rest) ? rest : text;
}
