// Small DOM helpers. Every value from the emulator goes in as text (textContent or an
// attribute), never as markup.

/** An element with attributes (`class`, `data-*`, `title`...) and children (nodes or text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') el.className = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** `text` with a line-break chance after each `sep` (paths after `/`, codes after `.`), never inside a word. */
export function breakable(text, sep) {
  const parts = String(text).split(sep);
  return parts.flatMap((part, i) => (i === parts.length - 1 ? [part] : [part + sep, document.createElement('wbr')]));
}

/** Replaces a table body's rows, or shows one "nothing" row spanning `columns`. */
export function fillRows(tbody, rows, columns, empty = 'Nothing yet.') {
  tbody.replaceChildren(...(rows.length ? rows : [h('tr', { class: 'empty' }, h('td', { colspan: columns }, empty))]));
}

/**
 * The controls of `form` an `errors[]` field names: by `name` or `data-field`, else by
 * the field's last segment (`match.path` is the form's `path`).
 */
function fieldControls(form, field) {
  if (!form || typeof field !== 'string') return [];
  const last = field
    .split('.')
    .pop()
    .replace(/\[\d+\]$/, '');
  return [...form.querySelectorAll('[name], [data-field]')].filter((el) => {
    const names = [el.getAttribute('name'), el.dataset.field];
    return names.includes(field) || names.includes(last);
  });
}

/** An error code as a link to its reference page (`/docs/errors/<code>`), opened in a new tab. */
export function codeLink(code, ...text) {
  const body = h('code', {}, ...(text.length ? text : [code]));
  if (typeof code !== 'string' || !/^svc\.[a-z0-9_.]+$/.test(code)) return body;
  return h('a', { href: `/docs/errors/${encodeURIComponent(code)}`, target: '_blank', rel: 'noopener', title: `What ${code} means` }, body);
}

/**
 * Shows a refused action's problem document in the panel (status, title, code linked to
 * its reference, detail, each field's reason and row, request id) and marks the fields
 * of `form` it names as invalid.
 */
export function showProblem(panel, problem, form) {
  clearMessages(panel);
  const box = panel.querySelector('.problem');
  const errors = Array.isArray(problem.errors) ? problem.errors : [];
  const parts = [
    h(
      'p',
      { class: 'problem-title' },
      h('strong', {}, `${problem.status || ''} ${problem.title ?? 'Refused'}`.trim()),
      problem.code ? codeLink(problem.code) : null,
    ),
    problem.detail ? h('p', {}, problem.detail) : null,
    errors.length
      ? h(
          'ul',
          {},
          // A restored snapshot's errors name the row at fault too (D-1186).
          errors.map((e) => h('li', {}, h('code', {}, e.field), e.row ? [' (row ', h('code', { 'data-row': '' }, e.row), ')'] : null, ': ', e.reason)),
        )
      : null,
    problem.hint ? h('p', { class: 'hint' }, problem.hint) : null,
    problem.requestId ? h('p', { class: 'muted' }, `request ${problem.requestId}`) : null,
  ];
  box.replaceChildren(...parts.filter((part) => part !== null));
  box.hidden = false;
  for (const e of errors) {
    for (const control of fieldControls(form, e.field)) {
      control.setAttribute('aria-invalid', 'true');
      control.title = e.reason;
    }
  }
}

/** Shows what an action did, in place of any earlier problem. */
export function showNote(panel, text) {
  clearMessages(panel);
  const note = panel.querySelector('.note');
  note.textContent = text;
  note.hidden = false;
}

/** Hides the panel's problem and note, and unmarks its fields. */
export function clearMessages(panel) {
  panel.querySelector('.problem').hidden = true;
  panel.querySelector('.note').hidden = true;
  for (const el of panel.querySelectorAll('[aria-invalid="true"]')) {
    el.removeAttribute('aria-invalid');
    el.removeAttribute('title');
  }
}

/** `2026-01-01T00:00:05.000Z` as `2026-01-01 00:00:05` (the emulator's time is UTC). */
export function shortTime(isoTime) {
  return typeof isoTime === 'string' ? isoTime.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '';
}

export function bytes(n) {
  if (typeof n !== 'number') return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A button that asks "again to confirm" before it acts; answers when it is armed. */
export function confirmButton(button, action) {
  const label = button.textContent;
  // A button named for its row (`aria-label`) says the same "click again" in that name.
  const name = button.getAttribute('aria-label');
  const show = (armed) => {
    button.dataset.armed = String(armed);
    button.textContent = armed ? `${label}: click again to confirm` : label;
    if (name) button.setAttribute('aria-label', armed ? `${name}: click again to confirm` : name);
  };
  let timer;
  button.addEventListener('click', () => {
    if (button.dataset.armed !== 'true') {
      show(true);
      timer = setTimeout(() => show(false), 4000);
      return;
    }
    clearTimeout(timer);
    show(false);
    action();
  });
}
