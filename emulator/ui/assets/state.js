// State: download a snapshot, restore one (the emulator checks the file and answers
// its problem document when it refuses it), reset to the fixtures.
import { act, checked } from './act.js';
import { api, send } from './api.js';
import { bytes, confirmButton, h } from './dom.js';
import { forgetConversation } from './chat.js';
import { forgetHeldKeys } from './held-keys.js';

const panel = document.getElementById('state');
const upload = document.getElementById('state-upload');

document.getElementById('state-download').addEventListener('click', () =>
  act(panel, async () => {
    const res = await send('GET', '/_emulator/state');
    const blob = await res.blob();
    const url = URL.createObjectURL(blob);
    const at = (document.getElementById('clock-now').textContent || 'now').replace(/[:.]/g, '-');
    const link = h('a', { href: url, download: `svc-emulator-state-${at}.json` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return `Downloaded the snapshot (${bytes(blob.size)}).`;
  }),
);

confirmButton(document.getElementById('state-reset'), () =>
  act(panel, async () => {
    await api('POST', '/_emulator/reset');
    // Keys minted since the fixtures loaded are gone, and so is the chat's conversation.
    forgetHeldKeys();
    forgetConversation();
    return 'Reset: back to the loaded fixtures; journal and faults cleared.';
  }),
);

upload.addEventListener('submit', (event) => {
  event.preventDefault();
  void act(
    panel,
    async () => {
      const file = upload.elements.file.files[0];
      checked(file ? [] : [{ field: 'file', reason: 'choose a snapshot file (.json) first' }]);
      await send('PUT', '/_emulator/state', { body: await file.text() });
      upload.reset();
      forgetConversation();
      return `Restored ${file.name}.`;
    },
    upload,
  );
});
