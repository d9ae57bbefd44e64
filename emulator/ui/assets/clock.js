// Clock and Queue: the emulated time (advance, set, quick steps) and the jobs waiting
// for it. A drain says what happened, scheduled jobs included (D-856).
import { act, checked, wholeNumber } from './act.js';
import { api } from './api.js';
import { fillRows, h, shortTime } from './dom.js';

const clockPanel = document.getElementById('clock');
const queuePanel = document.getElementById('queue');
const setForm = document.getElementById('clock-set');
let suggested = '';
let clockNow;

/** How far `iso` is from the emulated now: `in 23 h`, `5 min ago`. */
function relative(iso) {
  if (!clockNow) return '';
  const ms = Date.parse(iso) - Date.parse(clockNow);
  const abs = Math.abs(ms);
  const [n, unit] = abs < 60_000 ? [Math.round(abs / 1000), 's'] : abs < 3_600_000 ? [Math.round(abs / 60_000), 'min'] : abs < 172_800_000 ? [Math.round(abs / 3_600_000), 'h'] : [Math.round(abs / 86_400_000), 'd'];
  if (n === 0) return 'now';
  return ms > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** An hour after `now`, on the minute: a time "Set" takes (the clock only moves forward). */
function anHourLater(now) {
  const t = new Date(Date.parse(now) + 3_600_000);
  t.setUTCSeconds(0, 0);
  return t.toISOString();
}

export function renderClock(clock) {
  clockNow = clock.now;
  document.getElementById('clock-badge').textContent = `${shortTime(clock.now)} UTC${clock.frozen ? ' (frozen)' : ''}`;
  document.getElementById('clock-now').textContent = clock.now;
  document.getElementById('clock-frozen').textContent = clock.frozen ? 'frozen: moves only when told' : 'running';
  // The suggestion follows the clock until the user types a time of their own.
  const field = setForm.elements.now;
  const next = anHourLater(clock.now);
  if (document.activeElement !== field && (field.value === '' || field.value === suggested)) field.value = next;
  field.placeholder = next;
  suggested = next;
}

/** Shows the queue (`names`: workspace names by id). */
export function renderQueue(queue, names) {
  const { queued, running, failed } = queue.counts;
  const scheduled = queue.data.filter((j) => j.status === 'queued' && !j.due).length;
  document.getElementById('queue-counts').textContent = `${queued} queued (${scheduled}${queue.hasMore ? '+' : ''} scheduled for later) · ${running} running · ${failed} failed`;
  fillRows(queuePanel.querySelector('[data-rows="queue"]'), queue.data.map((job) => h('tr', { 'data-id': job.id },
    h('td', {}, h('code', {}, job.kind)),
    h('td', {}, h('span', { class: `badge ${job.status}`, 'data-status': job.status }, job.status), job.status === 'queued' ? h('small', {}, job.due ? ' due' : ' scheduled') : null),
    h('td', {}, shortTime(job.runAt), h('small', { class: 'muted' }, ` ${relative(job.runAt)}`)), h('td', { class: 'num' }, job.attempts),
    h('td', {}, names.get(job.workspaceId) ?? '', ' ', h('code', { class: 'muted' }, job.workspaceId)), h('td', {}, job.lastError ?? ''),
  )), 6, 'The queue is empty.');
}

async function moveClock(body) {
  const clock = await api('POST', '/_emulator/clock', body);
  renderClock(clock);
  return `Now ${clock.now}; what came due has run.`;
}

document.getElementById('clock-advance').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.target;
  void act(clockPanel, async () => {
    const errors = [];
    const amount = wholeNumber(form, 'amount', errors);
    if (amount === undefined) errors.push({ field: 'amount', reason: 'required' });
    checked(errors);
    return moveClock({ advanceMs: amount * Number(form.elements.unit.value) });
  }, form);
});

clockPanel.addEventListener('click', (event) => {
  const step = event.target.closest('button[data-advance]')?.dataset.advance;
  if (step) void act(clockPanel, () => moveClock({ advanceMs: Number(step) }));
});

setForm.addEventListener('submit', (event) => {
  event.preventDefault();
  void act(clockPanel, async () => {
    const now = setForm.elements.now.value.trim();
    checked(now ? [] : [{ field: 'now', reason: 'required: an RFC 3339 date-time such as the one suggested' }]);
    return moveClock({ now });
  }, setForm);
});

document.getElementById('queue-drain').addEventListener('click', () => act(queuePanel, async () => {
  const { ran } = await api('POST', '/_emulator/queue/drain');
  const after = await api('GET', '/_emulator/queue?limit=1000');
  const waiting = after.data.filter((j) => j.status === 'queued' && !j.due);
  const head = `Drained: ${ran} job${ran === 1 ? '' : 's'} ran.`;
  if (!waiting.length) return `${head} Nothing is waiting.`;
  const first = waiting[0];
  return `${head} ${waiting.length} job${waiting.length === 1 ? ' is' : 's are'} scheduled for later and not due yet (the first, ${first.kind}, at ${shortTime(first.runAt)} UTC, ${relative(first.runAt)}): a drain runs only due jobs; advance the clock to run ${waiting.length === 1 ? 'it' : 'them'}.`;
}));
