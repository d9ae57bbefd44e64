// Running an action from a form or button: the panel shows the emulator's problem
// document when it is refused, else what the action did; then the page refreshes.
import { ProblemError } from './api.js';
import { clearMessages, showNote, showProblem } from './dom.js';

let refresh = () => Promise.resolve();

/** Sets what runs after every action (the page's poll). */
export function afterActions(fn) {
  refresh = fn;
}

/**
 * Runs `action` for `panel`: a refusal shows its problem document (and marks the
 * fields of `form` it names), else the note `action` answers replaces any earlier
 * message, so an old refusal never stays beside a later success.
 */
export async function act(panel, action, form) {
  clearMessages(panel);
  try {
    const note = await action();
    if (note) showNote(panel, note);
  } catch (error) {
    showProblem(panel, error instanceof ProblemError ? error.problem : { title: 'The action failed', detail: String(error) }, form);
  }
  await refresh();
}

/** A form's number field: undefined when empty, else a whole number or a field error. */
export function wholeNumber(form, name, errors) {
  const raw = form.elements[name].value.trim();
  if (raw === '') return undefined;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(n)) errors.push({ field: name, reason: 'must be a whole number' });
  return n;
}

/** Refuses in the page, before anything is sent, when the form's own checks found errors. */
export function checked(errors) {
  if (errors.length) throw new ProblemError({ title: 'Check the form', detail: 'Nothing was sent: correct the fields below.', errors });
}
