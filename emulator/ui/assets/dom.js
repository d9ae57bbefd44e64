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

/** Replaces a table body's rows, or shows one "nothing" row spanning `columns`. */
export function fillRows(tbody, rows, columns, empty = 'Nothing yet.') {
  tbody.replaceChildren(...(rows.length ? rows : [h('tr', { class: 'empty' }, h('td', { colspan: columns }, empty))]));
}

/** Shows a refused action's problem document in the panel (title, code, detail, each field's reason). */
export function showProblem(panel, problem) {
  const box = panel.querySelector('.problem');
  panel.querySelector('.note').hidden = true;
  const errors = Array.isArray(problem.errors) ? problem.errors : [];
  const parts = [
    h('p', { class: 'problem-title' }, h('strong', {}, `${problem.status ?? ''} ${problem.title ?? 'Refused'}`.trim()), problem.code ? h('code', {}, problem.code) : null),
    problem.detail ? h('p', {}, problem.detail) : null,
    errors.length ? h('ul', {}, errors.map((e) => h('li', {}, h('code', {}, e.field), ': ', e.reason))) : null,
    problem.requestId ? h('p', { class: 'muted' }, `request ${problem.requestId}`) : null,
  ];
  box.replaceChildren(...parts.filter((part) => part !== null));
  box.hidden = false;
}

/** Shows what an action did, in place of any earlier problem. */
export function showNote(panel, text) {
  panel.querySelector('.problem').hidden = true;
  const note = panel.querySelector('.note');
  note.textContent = text;
  note.hidden = false;
}

export function clearMessages(panel) {
  panel.querySelector('.problem').hidden = true;
  panel.querySelector('.note').hidden = true;
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
  let timer;
  button.addEventListener('click', () => {
    if (button.dataset.armed !== 'true') {
      button.dataset.armed = 'true';
      button.textContent = `${label}: click again to confirm`;
      timer = setTimeout(() => { button.dataset.armed = 'false'; button.textContent = label; }, 4000);
      return;
    }
    clearTimeout(timer);
    button.dataset.armed = 'false';
    button.textContent = label;
    action();
  });
}
