/**
 * The chat box of agent pages, served as the site's own file (`/_site/widget.js`; the
 * CSP runs no inline script). It posts the question to the site's own `/_site/chat`
 * (no API key in the page), then reads the reply with the browser's EventSource, one
 * `token` event at a time. A visitor who asks too often (429) or finds the visitors'
 * share of credits spent (402) is told so in the page's language.
 */
export const CHAT_WIDGET_SCRIPT = `(() => {
  const box = document.querySelector('.chat');
  if (!box) return;
  const log = box.querySelector('.chat-log');
  const form = box.querySelector('form');
  const input = form.querySelector('input');
  const button = form.querySelector('button');
  let conversationId;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const message = input.value.trim();
    if (!message) return;
    input.value = '';
    button.disabled = true;
    const question = document.createElement('div');
    question.className = 'user';
    question.textContent = message;
    const reply = document.createElement('div');
    reply.className = 'agent';
    reply.textContent = box.dataset.thinking;
    log.append(question, reply);
    const settle = (failed, notice) => {
      if (failed) { reply.textContent = notice || box.dataset.error; reply.dataset.failed = notice ? 'notice' : 'true'; }
      button.disabled = false;
      input.focus();
    };
    try {
      const res = await fetch('/_site/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ path: box.dataset.path, message, conversationId }),
      });
      if (!res.ok) {
        const problem = await res.json().catch(() => ({}));
        if (res.status === 429) return settle(true, box.dataset.busy);
        return settle(true, problem.code === 'svc.usage.quota_exhausted' ? box.dataset.resting : undefined);
      }
      const { streamUrl } = await res.json();
      const source = new EventSource(streamUrl);
      let text = '';
      source.addEventListener('start', (e) => { conversationId = JSON.parse(e.data).conversationId; reply.textContent = ''; });
      source.addEventListener('token', (e) => { text += JSON.parse(e.data).text; reply.textContent = text; });
      source.addEventListener('done', (e) => { source.close(); reply.textContent = JSON.parse(e.data).reply; reply.dataset.done = 'true'; settle(false); });
      source.addEventListener('error', () => { if (source.readyState !== EventSource.CLOSED || reply.dataset.done !== 'true') { source.close(); if (reply.dataset.done !== 'true') settle(true); } });
    } catch {
      settle(true);
    }
  });
})();`;
