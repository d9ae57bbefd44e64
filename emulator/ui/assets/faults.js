// Faults: answer matching requests with a problem, or fail the next ingestions; list
// them, remove one (D-1196) or clear them all.
import { act, checked, wholeNumber } from './act.js';
import { api } from './api.js';
import { fillRows, h } from './dom.js';

const panel = document.getElementById('faults');

/** What a fault row is called: its Remove button's name and the note after it. */
function faultName(f) {
  if (f.ingest !== undefined) return `queued ingestion failures (${f.ingest})`;
  return `fault on ${f.match.method ?? 'any method'} ${f.match.path ?? 'any path'} (${f.status} ${f.code})`;
}

/** A row's Remove button: its name says which fault (every row has one). */
function removeButton(f) {
  const name = faultName(f);
  const button = h('button', { type: 'button', class: 'small secondary', 'data-remove': f.id, 'aria-label': `Remove ${name}` }, 'Remove');
  button.addEventListener('click', () =>
    act(panel, async () => {
      await api('DELETE', `/_emulator/faults/${encodeURIComponent(f.id)}`);
      return `Removed the ${name}.`;
    }),
  );
  return button;
}

export function renderFaults(faults) {
  fillRows(
    panel.querySelector('[data-rows="faults"]'),
    faults.map((f) =>
      // Queued ingestion failures (`ingest`) are listed after the request faults.
      f.ingest !== undefined
        ? h(
            'tr',
            { 'data-id': f.id },
            h('td', {}, '—'),
            h('td', {}, '(the next ingestions)'),
            h('td', {}, 'fails with ', h('code', {}, f.ingest)),
            h('td', { class: 'num' }, f.remaining),
            h('td', {}, removeButton(f)),
          )
        : h(
            'tr',
            { 'data-id': f.id },
            h('td', {}, f.match.method ?? 'any'),
            h('td', {}, h('code', {}, f.match.path ?? '(any path)')),
            h('td', {}, `${f.status} `, h('code', {}, f.code)),
            h('td', { class: 'num' }, f.remaining ?? '∞'),
            h('td', {}, removeButton(f)),
          ),
    ),
    5,
    'No faults: every request is answered normally.',
  );
}

document.getElementById('fault-add').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(
    panel,
    async () => {
      const errors = [];
      const match = {};
      if (form.elements.method.value) match.method = form.elements.method.value;
      if (form.elements.path.value.trim()) match.path = form.elements.path.value.trim();
      const body = { match };
      const status = wholeNumber(form, 'status', errors);
      if (status !== undefined) body.status = status;
      if (form.elements.code.value) body.code = form.elements.code.value;
      const times = wholeNumber(form, 'times', errors);
      if (times !== undefined) body.times = times;
      checked(errors);
      const fault = await api('POST', '/_emulator/faults', body);
      return `Added: ${fault.match.method ?? 'any method'} ${fault.match.path ?? 'any path'} answers ${fault.status} ${fault.code}${fault.remaining ? `, ${fault.remaining} time${fault.remaining === 1 ? '' : 's'}` : ' until cleared'}.`;
    },
    form,
  );
});

document.getElementById('fault-ingest').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(
    panel,
    async () => {
      const errors = [];
      const times = wholeNumber(form, 'times', errors);
      checked(errors);
      const queued = await api('POST', '/_emulator/faults', { ingest: form.elements.ingest.value, ...(times !== undefined && { times }) });
      return `The next ${queued.times} ingestion${queued.times === 1 ? '' : 's'} will fail with ${queued.ingest}.`;
    },
    form,
  );
});

document.getElementById('faults-clear').addEventListener('click', () =>
  act(panel, async () => {
    const { cleared } = await api('DELETE', '/_emulator/faults');
    return `Cleared ${cleared} fault${cleared === 1 ? '' : 's'} (queued ingestion failures included).`;
  }),
);
