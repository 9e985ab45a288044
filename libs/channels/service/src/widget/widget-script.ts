/**
 * The embeddable chat widget: plain browser JavaScript, no dependencies, served at `/channels/{id}/widget.js`. It
 * finds its channel from its own URL, keeps the visitor's token in localStorage (so a reload is the same visitor and
 * shows the history), long-polls the conversation, reconnects with backoff, and renders in a shadow root so the host
 * page's CSS neither breaks it nor is broken by it. Text is set with textContent: nothing a message says is HTML.
 */
export function widgetScript(title: string): string {
  return `(() => {
  'use strict';
  const script = document.currentScript;
  const src = new URL(script.src);
  const base = src.href.replace(/\\/widget\\.js(\\?.*)?$/, '');
  const storageKey = 'tenet-widget:' + base;
  const title = ${JSON.stringify(title)};
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const randomId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

  const host = document.createElement('div');
  host.id = 'tenet-widget';
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = '<style>' +
    ':host{all:initial;position:fixed;right:16px;bottom:16px;z-index:2147483000;font:14px/1.4 system-ui,sans-serif}' +
    'button.open{border:0;border-radius:24px;padding:10px 16px;background:#1f4fd8;color:#fff;cursor:pointer}' +
    '.panel{display:none;width:320px;height:420px;background:#fff;border:1px solid #ccd;border-radius:12px;box-shadow:0 8px 24px #0003;flex-direction:column;overflow:hidden}' +
    '.panel.shown{display:flex}.head{padding:10px 12px;background:#1f4fd8;color:#fff;font-weight:600}' +
    '.log{flex:1;overflow-y:auto;padding:8px;display:flex;flex-direction:column;gap:6px}' +
    '.msg{max-width:80%;padding:6px 10px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word}' +
    '.visitor{align-self:flex-end;background:#e6edff}.agent{align-self:flex-start;background:#f1f1f4}.pending{opacity:.6}' +
    '.status{font-size:12px;color:#666;padding:0 10px;min-height:16px}form{display:flex;border-top:1px solid #dde}' +
    'input{flex:1;border:0;padding:10px;font:inherit}form button{border:0;background:none;color:#1f4fd8;padding:0 12px;cursor:pointer}' +
    '</style><button class="open" part="open"></button><div class="panel" role="dialog"><div class="head"></div>' +
    '<div class="log" aria-live="polite"></div><div class="status"></div><form><input name="text" autocomplete="off" placeholder="Type a message…" aria-label="Message"><button type="submit">Send</button></form></div>';
  const openButton = root.querySelector('button.open');
  const panel = root.querySelector('.panel');
  const log = root.querySelector('.log');
  const status = root.querySelector('.status');
  const form = root.querySelector('form');
  openButton.textContent = title;
  root.querySelector('.head').textContent = title;
  openButton.addEventListener('click', () => panel.classList.toggle('shown'));

  let token = localStorage.getItem(storageKey);
  let offset = 0;
  const shown = new Set();

  const render = (from, text, id) => {
    if (id && shown.has(id)) return;
    if (id) shown.add(id);
    if (from === 'visitor') {
      const pending = Array.from(log.querySelectorAll('.pending')).find((el) => el.textContent === text);
      if (pending) { pending.classList.remove('pending'); return; }
    }
    const el = document.createElement('div');
    el.className = 'msg ' + from + (id ? '' : ' pending');
    el.textContent = text;
    log.appendChild(el);
    log.scrollTop = log.scrollHeight;
  };

  async function visitorToken() {
    for (let backoff = 1000; ; backoff = Math.min(backoff * 2, 15000)) {
      try {
        const response = await fetch(base + '/widget/visitors', { method: 'POST' });
        if (response.ok) {
          token = (await response.json()).visitor_token;
          localStorage.setItem(storageKey, token);
          return token;
        }
      } catch (e) { /* offline: retry */ }
      status.textContent = 'Connecting…';
      await sleep(backoff);
    }
  }

  async function poll() {
    for (let backoff = 1000; ; ) {
      try {
        const response = await fetch(base + '/widget/messages?after=' + offset + '&wait=25', { headers: { authorization: 'Bearer ' + token } });
        if (response.status === 401) { localStorage.removeItem(storageKey); await visitorToken(); offset = 0; continue; }
        if (!response.ok) throw new Error('status ' + response.status);
        const page = await response.json();
        for (const m of page.messages) render(m.from, m.text, m.id);
        offset = page.next_offset;
        status.textContent = '';
        backoff = 1000;
      } catch (e) {
        status.textContent = 'Reconnecting…';
        await sleep(backoff);
        backoff = Math.min(backoff * 2, 15000);
      }
    }
  }

  async function send(text) {
    const messageId = randomId();
    render('visitor', text);
    for (let attempt = 0, backoff = 1000; attempt < 6; attempt++, backoff *= 2) {
      try {
        const response = await fetch(base + '/inbound', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer ' + token }, body: JSON.stringify({ message_id: messageId, text }) });
        if (response.ok) return;
        if (response.status < 500) break;
      } catch (e) { /* retried with the same message id: the server keeps one */ }
      await sleep(backoff);
    }
    status.textContent = 'Your message could not be sent.';
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const input = form.elements.namedItem('text');
    const text = input.value.trim();
    if (!text) return;
    input.value = '';
    void send(text);
  });

  const start = async () => {
    document.body.appendChild(host);
    if (!token) await visitorToken();
    await poll();
  };
  if (document.body) void start(); else document.addEventListener('DOMContentLoaded', () => void start());
})();
`;
}
