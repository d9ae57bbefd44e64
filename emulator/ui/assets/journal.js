// Requests: the journal of /v1 and console calls, newest first, live; it can be
// paused, narrowed to refusals, or to paths holding some text.
import { breakable, codeLink, fillRows, h, shortTime } from './dom.js';

const rows = document.querySelector('[data-rows="journal"]');
const refusedOnly = document.getElementById('journal-refused');
const filter = document.getElementById('journal-filter');
let last = [];
let lastNames = new Map();

/** What a request was addressed to: a hosted site's requests name its host (D-1197), the API's are their path. */
function target(e) {
  return e.host ? `${e.host}${e.path}` : e.path;
}

/** Whether the journal is paused (the poll then skips it). */
export function journalPaused() {
  return document.getElementById('journal-pause').checked;
}

/** Shows `entries` (as `GET /_emulator/requests` answers them) through the filters; `names`: workspace names by id. */
export function renderJournal(entries, names = new Map()) {
  lastNames = names;
  last = entries;
  const text = filter.value.trim();
  const shown = entries.filter((e) => (!refusedOnly.checked || e.status >= 400) && (!text || target(e).includes(text)));
  const empty = entries.length ? 'No request matches the filters.' : 'No requests yet: calls to /v1 appear here as they are answered.';
  fillRows(
    rows,
    shown.map((e) =>
      h(
        'tr',
        { class: e.status >= 400 ? 'refused' : undefined, 'data-request': e.requestId },
        h('td', { class: 'nowrap', title: e.at }, shortTime(e.at).slice(11)),
        h('td', {}, e.method),
        h('td', {}, h('code', {}, breakable(target(e), '/'))),
        h('td', {}, h('span', { class: `status s${String(e.status)[0]}xx` }, e.status)),
        h('td', {}, e.code ? codeLink(e.code, breakable(e.code, '.')) : ''),
        h('td', { class: 'nowrap' }, e.keyPrefix ? h('code', {}, `${e.keyPrefix}…`) : ''),
        h('td', { title: e.workspaceId ?? undefined }, e.workspaceId ? (lastNames.get(e.workspaceId) ?? h('code', {}, e.workspaceId)) : ''),
        h('td', {}, h('code', { class: 'muted' }, e.requestId)),
      ),
    ),
    8,
    empty,
  );
}

refusedOnly.addEventListener('change', () => renderJournal(last, lastNames));
filter.addEventListener('input', () => renderJournal(last, lastNames));
