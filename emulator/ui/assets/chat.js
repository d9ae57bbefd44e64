// The chat box: one turn at a time as the selected workspace, through the control
// plane's chat route (no key in the page), read as a server-sent event stream.
import { EventSourceParserStream } from './vendor/eventsource-parser/stream.js';
import { ProblemError, send } from './api.js';
import { clearMessages, h, showProblem } from './dom.js';

const panel = document.getElementById('chat');
const form = document.getElementById('chat-form');
const select = document.getElementById('chat-agent');
const log = document.getElementById('chat-log');

let workspaceId;
let conversationId;
let shownAgents = '';

function newConversation() {
  conversationId = undefined;
  log.replaceChildren();
  clearMessages(panel);
}

/** The agents of the selected workspace (called on every refresh; keeps the choice). */
export function setAgents(workspace, agents) {
  const key = JSON.stringify([workspace, agents.map((a) => [a.id, a.name])]);
  if (key === shownAgents) return;
  shownAgents = key;
  if (workspace !== workspaceId) {
    workspaceId = workspace;
    newConversation();
  }
  const chosen = select.value;
  const placeholder = workspace ? (agents.length ? '(choose an agent)' : '(no agents in this workspace)') : '(select a workspace)';
  select.replaceChildren(h('option', { value: '' }, placeholder), ...agents.map((a) => h('option', { value: a.id }, `${a.name} (${a.id})`)));
  if (agents.some((a) => a.id === chosen)) select.value = chosen;
}

/** Picks an agent (its row's Chat button) and puts the cursor in the message box. */
export function chooseAgent(agentId) {
  if (select.value !== agentId) {
    select.value = agentId;
    newConversation();
  }
  form.elements.message.focus();
}

async function readStream(res, reply, text) {
  const events = res.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  let streamed = '';
  for (;;) {
    const { value: event, done } = await reader.read();
    if (done) break;
    const data = JSON.parse(event.data);
    if (event.event === 'start') conversationId = data.conversationId;
    else if (event.event === 'token') {
      streamed += data.text;
      text.textContent = streamed;
    } else if (event.event === 'done') {
      text.textContent = data.reply;
      const sources = (data.components ?? []).flatMap((c) => c.items ?? []);
      if (sources.length) reply.append(h('p', { class: 'sources' }, 'Sources: ', sources.map((s) => s.title).join(' · ')));
      reply.dataset.done = 'true';
    } else if (event.event === 'error') {
      throw new ProblemError(data);
    }
  }
  if (reply.dataset.done !== 'true') throw new ProblemError({ title: 'The stream ended before the reply was done', status: 0 });
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const agentId = select.value;
  const message = form.elements.message.value.trim();
  if (!workspaceId || !agentId) return showProblem(panel, { title: 'Choose an agent first', detail: 'Select a workspace, then one of its agents.' });
  if (!message) return showProblem(panel, { title: 'Write a message', detail: 'The message must not be blank.' });
  clearMessages(panel);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  const text = h('p', { class: 'text' }, '…');
  const reply = h('li', { class: 'agent' }, text);
  log.append(h('li', { class: 'user' }, message), reply);
  form.elements.message.value = '';
  try {
    const res = await send('POST', `/_emulator/workspaces/${encodeURIComponent(workspaceId)}/agents/${encodeURIComponent(agentId)}/chat`, {
      body: conversationId ? { message, conversationId } : { message },
      accept: 'text/event-stream',
    });
    await readStream(res, reply, text);
  } catch (error) {
    reply.dataset.failed = 'true';
    text.textContent = 'No reply.';
    showProblem(panel, error instanceof ProblemError ? error.problem : { title: 'The chat failed', detail: String(error) });
  } finally {
    button.disabled = false;
  }
});

select.addEventListener('change', newConversation);
document.getElementById('chat-new').addEventListener('click', newConversation);
