// Calls from the UI: to the control plane and the console routes, and to /v1 with an
// API key (the chat). The admin token (only when the emulator was started with one)
// is asked for once, kept for this tab in sessionStorage, and sent as
// `Authorization: Bearer` to the control plane only; never in a URL.

const TOKEN_KEY = 'svc-emulator-admin-token';

/** A refused action: carries the RFC 9457 problem document the emulator answered. */
export class ProblemError extends Error {
  constructor(problem) {
    super(problem.detail || problem.title || 'Request failed');
    this.problem = problem;
  }
}

let asking;

/** Whether this tab holds an admin token (given before a reload, say). */
export function holdsToken() {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

/** Opens the token dialog (once, however many calls were refused) and resolves with the token. */
function askToken(refused) {
  asking ??= new Promise((resolve) => {
    const dialog = document.getElementById('token-dialog');
    const form = document.getElementById('token-form');
    const problem = document.getElementById('token-problem');
    problem.hidden = !refused;
    problem.textContent = refused ? 'That token was refused (401 svc.auth.unauthorized).' : '';
    form.reset();
    const done = (event) => {
      event.preventDefault();
      const token = form.elements.token.value.trim();
      if (!token) return;
      form.removeEventListener('submit', done);
      sessionStorage.setItem(TOKEN_KEY, token);
      dialog.close();
      asking = undefined;
      resolve(token);
    };
    form.addEventListener('submit', done);
    // Escape would leave every call waiting: the dialog stays until a token is given.
    dialog.oncancel = (event) => event.preventDefault();
    dialog.showModal();
    document.getElementById('token-button').hidden = false;
  });
  return asking;
}

/** Forgets the token and asks for another (the header's button). */
export function changeToken() {
  sessionStorage.removeItem(TOKEN_KEY);
  return askToken(false);
}

function headersFor(init) {
  const headers = { accept: init.accept ?? 'application/json' };
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

async function problemOf(res) {
  const text = await res.text();
  try {
    const body = JSON.parse(text);
    if (body && typeof body === 'object' && typeof body.status === 'number') return body;
  } catch {
    // not a problem document: describe the answer instead
  }
  return { title: res.statusText || 'Request failed', status: res.status, detail: text.slice(0, 300) };
}

/**
 * Sends one control-plane request and answers the raw `Response` when it succeeded.
 * A 401 asks for the admin token and tries again; any other refusal throws a
 * `ProblemError` with the emulator's problem document.
 */
export async function send(method, path, init = {}) {
  let refused = false;
  for (;;) {
    const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
    const res = await fetch(path, { method, headers: headersFor(init), body, cache: 'no-store' });
    if (res.ok) return res;
    const problem = await problemOf(res);
    if (res.status === 401 && problem.code === 'svc.auth.unauthorized') {
      const hadToken = sessionStorage.getItem(TOKEN_KEY) !== null;
      if (hadToken) sessionStorage.removeItem(TOKEN_KEY);
      await askToken(refused || hadToken);
      refused = true;
      continue;
    }
    throw new ProblemError(problem);
  }
}

/** Like `send`, answering the parsed JSON body. */
export async function api(method, path, body) {
  const res = await send(method, path, body === undefined ? {} : { body });
  return res.json();
}

/**
 * Sends one `/v1` request with an API key (never the admin token): answers the raw
 * `Response` when it succeeded, else throws a `ProblemError` with the problem document.
 */
export async function v1(method, path, secret, init = {}) {
  const headers = { accept: init.accept ?? 'application/json', authorization: `Bearer ${secret}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const res = await fetch(path, { method, headers, body, cache: 'no-store' });
  if (res.ok) return res;
  throw new ProblemError(await problemOf(res));
}
