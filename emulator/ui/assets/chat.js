// The chat: one turn at a time through `POST /v1/agents/{id}/chat` with a key of the
// chosen workspace (D-852), read as a server-sent event stream. So each turn is a real
// /v1 request: it shows under Requests, spends a credit, and injected faults apply.
import { EventSourceParserStream } from './vendor/eventsource-parser/stream.js';
import { ProblemError, api, v1 } from './api.js';
import { act } from './act.js';
import { clearMessages, h, showProblem } from './dom.js';
import { dropKey, heldKeys, holdKey } from './held-keys.js';

const panel = document.getElementById('chat');
const form = document.getElementById('chat-form');
const agentSelect = document.getElementById('chat-agent');
const keySelect = document.getElementById('chat-key');
const pasteForm = document.getElementById('chat-paste');
const log = document.getElementById('chat-log');

let workspaceId;
let conversationId;
let shownAgents = '';
let shownKeys = '';
/** The fixtures' keys that can chat (the CLI prints them at start-up), from the control plane. */
let fixtureKeys = [];

function newConversation() {
  conversationId = undefined;
  log.replaceChildren();
  clearMessages(panel);
}

/** After a reset or a restore: the conversation shown is gone from the emulator, so the next message starts one (D-1181). */
export function forgetConversation() {
  newConversation();
}

/** The agents of the chosen workspace, the published site's first (called on every refresh; keeps the choice). */
export function setAgents(workspace, agents) {
  const key = JSON.stringify([workspace, agents.map((a) => [a.id, a.name])]);
  if (key === shownAgents) return;
  shownAgents = key;
  if (workspace !== workspaceId) {
    workspaceId = workspace;
    newConversation();
  }
  const chosen = agentSelect.value;
  if (!agents.length) agentSelect.replaceChildren(h('option', { value: '' }, workspace ? '(no agents in this workspace)' : '(choose a workspace)'));
  else agentSelect.replaceChildren(...agents.map((a) => h('option', { value: a.id }, `${a.name} (${a.identity.businessName})`)));
  if (agents.some((a) => a.id === chosen)) agentSelect.value = chosen;
  setKeys();
}

/** The fixture keys as `GET /_emulator/fixture-keys` answers them. */
export function setFixtureKeys(keys) {
  fixtureKeys = keys.filter((k) => k.scopes.includes('chat:write'));
  setKeys();
}

/** The keys the chat can use for this workspace: held by this tab first, then the fixtures'. */
function usableKeys() {
  if (!workspaceId) return [];
  const held = heldKeys(workspaceId).map((k) => ({
    ...k,
    label: `${k.name ?? 'key'} · ${k.prefix}… (${k.how === 'pasted' ? 'pasted' : 'minted'} in this tab)`,
  }));
  const fixtures = fixtureKeys
    .filter((k) => k.workspaceId === workspaceId && !held.some((x) => x.prefix === k.prefix))
    .map((k) => ({ ...k, label: `${k.name} · ${k.prefix}… (printed at start-up)` }));
  return [...held, ...fixtures];
}

/** Refreshes the key choices (after a mint, a paste, a revoke, a refresh). */
export function setKeys() {
  const keys = usableKeys();
  const shown = JSON.stringify([workspaceId, keys.map((k) => k.label)]);
  if (shown === shownKeys) return;
  shownKeys = shown;
  const chosen = keySelect.value;
  if (!keys.length) keySelect.replaceChildren(h('option', { value: '' }, workspaceId ? '(no key: mint or paste one)' : '(choose a workspace)'));
  else keySelect.replaceChildren(...keys.map((k) => h('option', { value: k.prefix }, k.label)));
  if (keys.some((k) => k.prefix === chosen)) keySelect.value = chosen;
}

/** Picks an agent (its row's Chat button) and puts the cursor in the message box. */
export function chooseAgent(agentId) {
  if (agentSelect.value !== agentId) {
    agentSelect.value = agentId;
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

const NO_KEY_HINT = 'Mint a chat key (a workspace holds at most two active keys), or use a key you have: the demo’s keys are printed when the emulator starts.';

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const agentId = agentSelect.value;
  const key = usableKeys().find((k) => k.prefix === keySelect.value);
  const message = form.elements.message.value.trim();
  if (!workspaceId || !agentId)
    return showProblem(
      panel,
      { title: 'Choose an agent first', detail: 'Choose a workspace with agents, then one of them.', errors: [{ field: 'agent', reason: 'required' }] },
      form,
    );
  if (!key)
    return showProblem(
      panel,
      {
        title: 'No key for the chat',
        detail: 'The chat sends through /v1, which needs a key of this workspace with chat:write.',
        hint: NO_KEY_HINT,
        errors: [{ field: 'key', reason: 'required' }],
      },
      form,
    );
  if (!message)
    return showProblem(panel, { title: 'Write a message', detail: 'The message must not be blank.', errors: [{ field: 'message', reason: 'required' }] }, form);
  clearMessages(panel);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  const text = h('p', { class: 'text' }, '…');
  const reply = h('li', { class: 'agent' }, text);
  log.append(h('li', { class: 'user' }, message), reply);
  form.elements.message.value = '';
  try {
    const res = await v1('POST', `/v1/agents/${encodeURIComponent(agentId)}/chat`, key.secret, {
      body: conversationId ? { message, conversationId } : { message },
      accept: 'text/event-stream',
    });
    await readStream(res, reply, text);
  } catch (error) {
    reply.dataset.failed = 'true';
    text.textContent = 'No reply.';
    const problem = error instanceof ProblemError ? error.problem : { title: 'The chat failed', detail: String(error) };
    if (problem.code === 'svc.resource.not_found' && conversationId) {
      // The conversation went with a reset or a restore (another tab's, or the control plane's).
      conversationId = undefined;
      problem.hint = 'That conversation no longer exists (the state was reset or restored): send the message again to start a new one.';
    } else if (problem.code === 'svc.api_key.invalid') {
      // Revoked, expired or gone with a restored state: this tab stops offering it.
      dropKey(workspaceId, key.prefix);
      setKeys();
      problem.hint = `This tab no longer offers ${key.prefix}…. ${NO_KEY_HINT}`;
    }
    showProblem(panel, problem, form);
  } finally {
    button.disabled = false;
    log.scrollTop = log.scrollHeight;
  }
});

document.getElementById('chat-mint').addEventListener('click', () => {
  const ws = workspaceId;
  void act(panel, async () => {
    if (!ws) throw new ProblemError({ title: 'Choose a workspace first' });
    const key = await api('POST', `/workspaces/${encodeURIComponent(ws)}/keys`, { name: 'emulator-ui-chat', scopes: ['chat:write'] });
    holdKey(ws, { ...key, how: 'minted' });
    setKeys();
    keySelect.value = key.prefix;
    return `Minted ${key.name} (${key.prefix}…, chat:write only) for this tab’s chat: one of the workspace’s two active keys; revoke it under Workspaces & keys when done.`;
  });
});

document.getElementById('chat-paste-open').addEventListener('click', () => {
  pasteForm.hidden = false;
  pasteForm.elements.secret.focus();
});

document.getElementById('chat-paste-cancel').addEventListener('click', () => {
  pasteForm.reset();
  pasteForm.hidden = true;
});

// A pasted key is checked with GET /v1/me: it must be this workspace's and may chat.
pasteForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const ws = workspaceId;
  const secret = pasteForm.elements.secret.value.trim();
  void act(
    panel,
    async () => {
      if (!secret) throw new ProblemError({ title: 'Check the form', detail: 'Nothing was sent.', errors: [{ field: 'secret', reason: 'required' }] });
      // A key the emulator refuses (unknown, revoked, expired): the field is what is wrong (D-1188).
      const me = await v1('GET', '/v1/me', secret).then(
        (res) => res.json(),
        (error) => {
          if (error instanceof ProblemError && error.problem.status === 401) {
            const errors = Array.isArray(error.problem.errors) ? error.problem.errors : [];
            throw new ProblemError({ ...error.problem, errors: [...errors, { field: 'secret', reason: 'this key was refused' }] });
          }
          throw error;
        },
      );
      if (me.workspaceId !== ws)
        throw new ProblemError({
          title: 'A key of another workspace',
          detail: `That key belongs to ${me.workspaceId}; choose that workspace or paste a key of this one.`,
          errors: [{ field: 'secret', reason: 'must be a key of this workspace' }],
        });
      if (!me.scopes.includes('chat:write'))
        throw new ProblemError({
          title: 'That key cannot chat',
          detail: 'The chat needs a key with the chat:write scope.',
          errors: [{ field: 'secret', reason: 'needs chat:write' }],
        });
      const prefix = secret.slice(0, 12);
      holdKey(ws, { name: 'pasted key', prefix, secret, scopes: me.scopes, how: 'pasted' });
      pasteForm.reset();
      pasteForm.hidden = true;
      setKeys();
      keySelect.value = prefix;
      return `This tab will chat with ${prefix}….`;
    },
    pasteForm,
  );
});

agentSelect.addEventListener('change', newConversation);
document.getElementById('chat-new').addEventListener('click', newConversation);
