/**
 * The chat page: posts customer messages and long-polls the session's events. Open mode (`/chat?agent_id=`): it
 * creates the session itself. With API keys required, a browser never holds a key: the site's backend creates the
 * session and mints a short-lived session token with its key (`POST /sessions/{id}/tokens`), then sends the
 * browser to `/chat?session_id=<id>#token=<tst_…>`. The token travels in the fragment (never sent to a server or
 * written to an access log), is dropped from the address bar at once, and is all the page uses: it may read that
 * session and post to it, nothing else (docs/security.md).
 */
export const chatPage = (agentId: string, sessionId?: string, options: { offlineProvider?: boolean } = {}): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tenet chat</title>
<style>
  body { font: 15px/1.45 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
  main { max-width: 720px; margin: 0 auto; height: 100vh; display: flex; flex-direction: column; }
  header { padding: 14px 18px; background: #1d2330; color: #fff; }
  header small { color: #aab2c5; display: block; }
  #log { flex: 1; overflow-y: auto; padding: 16px; }
  .msg { max-width: 78%; margin: 8px 0; padding: 9px 13px; border-radius: 14px; white-space: pre-wrap; }
  .customer { background: #2f6fed; color: #fff; margin-left: auto; border-bottom-right-radius: 4px; }
  .ai_agent, .human_agent, .human_agent_on_behalf_of_ai_agent { background: #fff; border: 1px solid #dde1e8; border-bottom-left-radius: 4px; }
  .why { font-size: 12px; color: #5b6477; margin: -2px 0 10px; }
  .tool { font: 12px/1.4 ui-monospace, monospace; color: #34405a; background: #eef1f6; border-left: 3px solid #2f6fed; padding: 6px 10px; margin: -2px 0 10px; max-width: 78%; white-space: pre-wrap; word-break: break-word; }
  #journey { padding: 8px 18px; background: #e9eefb; border-bottom: 1px solid #d3dcf3; font-size: 13px; color: #24324f; }
  #journey[hidden] { display: none; }
  #journey ol { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0 0; padding: 0; list-style: none; }
  #journey li { color: #7a869f; }
  #journey li.done { color: #24324f; }
  #journey li.current { color: #2f6fed; font-weight: 600; }
  .sources { font-size: 12px; color: #34405a; margin: -2px 0 10px; max-width: 78%; }
  .sources a { color: #2f6fed; }
  .sources details { margin: 2px 0; }
  .sources summary { cursor: pointer; }
  .sources blockquote { margin: 4px 0 4px 12px; color: #5b6477; white-space: pre-wrap; }
  #offline { padding: 8px 18px; background: #fff6db; border-bottom: 1px solid #f0dc9c; font-size: 13px; color: #5a4500; }
  #status { height: 20px; padding: 0 18px; font-size: 13px; color: #5b6477; }
  form { display: flex; gap: 8px; padding: 12px 16px; background: #fff; border-top: 1px solid #dde1e8; }
  input { flex: 1; padding: 10px 12px; border: 1px solid #c8cdd8; border-radius: 8px; font: inherit; }
  button { padding: 10px 16px; border: 0; border-radius: 8px; background: #2f6fed; color: #fff; font: inherit; cursor: pointer; }
</style>
</head>
<body>
<main>
  <header><strong id="title">Tenet</strong><small id="sub">connecting…</small></header>
${options.offlineProvider ? OFFLINE_NOTICE : ''}
  <section id="journey" aria-label="Journey" hidden></section>
  <div id="log" aria-live="polite"></div>
  <div id="status"></div>
  <form id="form"><input id="text" autocomplete="off" placeholder="Type a message" aria-label="Message"><button>Send</button></form>
</main>
<script type="module">
const agentId = ${JSON.stringify(agentId)};
const sessionId = ${JSON.stringify(sessionId ?? null)};
// A session token from the fragment: kept in memory only, and removed from the address bar (and history) at once.
const token = new URLSearchParams(location.hash.slice(1)).get('token');
if (token) history.replaceState(null, '', location.pathname + location.search);
const log = document.getElementById('log');
const statusLine = document.getElementById('status');
const api = async (method, path, body) => {
  const headers = { 'content-type': 'application/json', ...(token ? { authorization: 'Bearer ' + token } : {}) };
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  if (response.status === 401) throw new Error(token ? 'this chat link has expired: ask for a new one' : 'this server requires API keys: open the chat through a link with a session token (/chat?session_id=…#token=…)');
  if (!response.ok && response.status !== 504) throw new Error(method + ' ' + path + ' → ' + response.status + ' ' + await response.text());
  return response.status === 504 ? [] : response.json();
};
const add = (cls, text) => { const div = document.createElement('div'); div.className = cls; div.textContent = text; log.append(div); log.scrollTop = log.scrollHeight; };
let agent = { name: 'Tenet' };
let session;
let journeyList = [];
try {
  if (sessionId) {
    // A session token reads its own session only: no agent or journey definitions.
    session = await api('GET', '/sessions/' + sessionId);
    agent = { name: session.title || 'Chat' };
  } else {
    agent = await api('GET', '/agents/' + agentId);
    session = await api('POST', '/sessions', { agent_id: agentId, title: 'Browser chat' });
    journeyList = await api('GET', '/journeys');
  }
} catch (error) {
  document.getElementById('sub').textContent = error.message;
  throw error;
}
document.getElementById('title').textContent = agent.name;
document.getElementById('sub').textContent = agent.description ?? '';
let offset = 0;
// The journey the agent is following, beside the conversation: its title, the steps walked and the current one.
const journeys = new Map(journeyList.map((j) => [j.id, j]));
const journeyPanel = document.getElementById('journey');
// A journey's condition guidelines are named after their journey (their ids are generated).
const guidelineLabel = (id) => { const j = [...journeys.values()].find((x) => x.conditions.includes(id)); return j ? 'journey "' + j.title + '"' : id; };
const showJourney = (ready) => {
  const states = ready?.journey_states;
  if (!states) return;
  const state = states.find((s) => s.journey_id === ready.active_journey?.journey_id) ?? states.find((s) => s.status === 'Active') ?? states.at(-1);
  const journey = state && journeys.get(state.journey_id);
  if (!journey) { journeyPanel.hidden = true; return; }
  const stepName = (id) => journey.steps.find((st) => st.id === id)?.name ?? id;
  journeyPanel.replaceChildren();
  const title = document.createElement('strong');
  title.textContent = '🧭 ' + journey.title + ' — ' + (state.status === 'Active' ? 'at ' + stepName(state.step_id) : state.status.toLowerCase());
  const steps = document.createElement('ol');
  for (const id of state.step_history) {
    const li = document.createElement('li');
    li.textContent = stepName(id);
    li.className = id === state.step_id && state.status === 'Active' ? 'current' : 'done';
    steps.append(li);
  }
  journeyPanel.append(title, steps);
  journeyPanel.hidden = false;
};
// A turn's tool calls arrive before its reply; they are shown under the reply (by the turn's correlation id).
const toolCalls = new Map();
const showTools = (correlationId) => {
  for (const call of toolCalls.get(correlationId) ?? []) {
    const error = call.result?.metadata?.error;
    add('tool', '🔧 ' + call.tool_id + '(' + JSON.stringify(call.arguments) + ')\\n→ ' + (error ? 'failed: ' + error.code : JSON.stringify(call.result?.data)));
  }
  toolCalls.delete(correlationId);
};
// Knowledge citations (data.sources): title › heading, linked when the source has a URL, the passage on click.
const showSources = (sources) => {
  if (!Array.isArray(sources) || sources.length === 0) return;
  const box = document.createElement('div');
  box.className = 'sources';
  for (const source of sources) {
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.append('📄 source: ');
    const label = source.title + ' › ' + source.heading;
    if (typeof source.url === 'string' && (source.url.startsWith('https://') || source.url.startsWith('http://'))) {
      const link = document.createElement('a');
      link.href = source.url; link.target = '_blank'; link.rel = 'noopener noreferrer'; link.textContent = label;
      summary.append(link);
    } else summary.append(label);
    const quote = document.createElement('blockquote');
    quote.textContent = source.chunk_text;
    details.append(summary, quote);
    box.append(details);
  }
  log.append(box);
  log.scrollTop = log.scrollHeight;
};
(async function follow() {
  for (;;) {
    try {
      const events = await api('GET', '/sessions/' + session.id + '/events?min_offset=' + offset + '&wait_for_data=30');
      for (const event of events) {
        offset = event.offset + 1;
        if (event.kind === 'tool') toolCalls.set(event.correlation_id, [...(toolCalls.get(event.correlation_id) ?? []), ...event.data.tool_calls]);
        if (event.kind === 'message') {
          add('msg ' + event.source, event.data.message);
          if (event.source !== 'customer') showSources(event.data.sources);
          if (event.source !== 'customer') showTools(event.correlation_id);
        }
        if (event.kind === 'status') {
          const s = event.data.status;
          const awaiting = event.data.data?.stage === 'awaiting_tool' ? ' calling ' + event.data.data.tool_ids.join(', ') : '';
          statusLine.textContent = s === 'ready' || s === 'cancelled' ? '' : s === 'error' ? 'something went wrong' + (event.data.data?.tool_id ? ' (tool ' + event.data.data.tool_id + ' failed)' : '') : agent.name + ' is ' + s + awaiting + '…';
          if (s === 'error') showTools(event.correlation_id);
          const matched = event.data.data?.matched_guidelines;
          if (s === 'ready') showJourney(event.data.data);
          if (s === 'ready' && matched?.length) add('why', 'followed: ' + matched.map((m) => guidelineLabel(m.guideline_id) + ' (' + m.score.toFixed(2) + ')').join(', '));
        }
      }
    } catch (error) { statusLine.textContent = String(error); await new Promise((r) => setTimeout(r, 2000)); }
  }
})();
document.getElementById('form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('text');
  const message = input.value.trim();
  if (!message) return;
  input.value = '';
  await api('POST', '/sessions/' + session.id + '/events', { kind: 'message', source: 'customer', message });
});
</script>
</body>
</html>
`;

/** Shown while the server runs without a language model, so a newcomer does not take the stand-in's phrasing for the product. */
const OFFLINE_NOTICE = `<p id="offline" role="note">Replies come from Tenet's offline stand-in — deterministic phrases built from the matched guidelines, not a language model — until the server is started with <code>OPENAI_API_KEY</code> or <code>ANTHROPIC_API_KEY</code>.</p>`;
