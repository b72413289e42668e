// The /calls page: the agent's call records (GET /api/calls, docs/call-records.md), one call as a timeline.
const $ = (id) => document.getElementById(id);
let token = new URLSearchParams(location.hash.slice(1)).get('token') ?? sessionStorage.getItem('shoal-token') ?? '';
let next;

const el = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children.filter((child) => child !== undefined));
  return node;
};
const clock = (ms) => {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};
const status = (text) => ($('status').textContent = text);

async function api(path) {
  const response = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
  if (response.status === 401 || response.status === 403) {
    $('token-form').hidden = false;
    throw new Error((await response.json()).message);
  }
  if (!response.ok) throw new Error((await response.json()).message ?? `HTTP ${response.status}`);
  return response.json();
}

function filters() {
  const params = new URLSearchParams();
  for (const name of ['q', 'ended_by', 'slow_ms']) if ($(name).value.trim()) params.set(name, $(name).value.trim());
  const hours = Number($('since').value);
  if (hours) params.set('since', new Date(Date.now() - hours * 3_600_000).toISOString());
  return params;
}

async function list(more = false) {
  const params = filters();
  if (more && next) params.set('before', next);
  try {
    const page = await api(`/api/calls?${params}`);
    const body = $('calls').tBodies[0];
    if (!more) body.replaceChildren();
    for (const call of page.calls) {
      const row = el(
        'tr',
        { 'data-id': call.id, tabindex: '0' },
        el('td', {}, new Date(call.startedAt).toLocaleString()),
        el('td', {}, [call.transport.kind, call.transport.carrier].filter(Boolean).join(' ')),
        el('td', {}, call.transport.from ?? ''),
        el('td', {}, String(call.turns)),
        el('td', {}, call.slowestTurnMs !== undefined ? `${call.slowestTurnMs} ms` : ''),
        el('td', {}, call.finished ? (call.endedBy ?? '') : 'unfinished'),
      );
      row.addEventListener('click', () => show(call.id, row));
      row.addEventListener('keydown', (event) => event.key === 'Enter' && show(call.id, row));
      body.append(row);
    }
    next = page.next;
    $('more').hidden = !next;
    status(body.rows.length === 0 ? 'No calls match.' : `${body.rows.length} call(s).`);
  } catch (error) {
    status(error.message);
  }
}

const parts = [
  ['endpoint', 'endpointingMs', 'silence until end of turn'],
  ['asr', 'endOfSpeechToFinalMs', 'end of speech → transcript'],
  ['dialogue', 'dialogueFirstTokenMs', '→ first token'],
  ['tts', 'ttsFirstAudioMs', '→ first audio'],
];

function bars(metrics) {
  const total = metrics.voiceToVoiceMs;
  if (!total) return undefined;
  const scale = (ms) => `${(100 * ms) / Math.max(total, 2000)}%`;
  const row = el('div', { class: 'bars', title: `voice to voice ${Math.round(total)} ms` });
  let known = 0;
  for (const [name, key, label] of parts) {
    const ms = metrics[key];
    if (!ms) continue;
    known += ms;
    row.append(el('span', { class: name, style: `width:${scale(ms)}`, title: `${label}: ${Math.round(ms)} ms` }));
  }
  if (total > known) row.append(el('span', { class: 'other', style: `width:${scale(total - known)}`, title: `other: ${Math.round(total - known)} ms` }));
  const figures = parts.filter(([, key]) => metrics[key] !== undefined).map(([name, key]) => `${name} ${Math.round(metrics[key])}`);
  return el('div', {}, row, el('span', { class: 'figures' }, `voice to voice ${Math.round(total)} ms (${figures.join(', ')})`));
}

function entryItem(entry, audio) {
  const at = el('span', { class: 'at' }, clock(entry.startedAtMs ?? entry.atMs));
  switch (entry.kind) {
    case 'turn': {
      const item = el(
        'li',
        { class: 'turn', 'data-turn': String(entry.turn), 'data-at': String(entry.startedAtMs ?? entry.atMs), tabindex: '0' },
        at,
        entry.userText ? el('span', { class: 'lane caller' }, entry.userText) : undefined,
        el('span', { class: 'lane agent' }, entry.agentText, entry.interrupted ? el('span', { class: 'cut' }, 'cut short by the caller') : undefined),
        bars(entry.metrics),
      );
      const seek = () => {
        if (audio.hidden) return;
        audio.currentTime = (entry.startedAtMs ?? entry.atMs) / 1000;
        void audio.play().catch(() => undefined);
      };
      item.addEventListener('click', seek);
      item.addEventListener('keydown', (event) => event.key === 'Enter' && seek());
      return item;
    }
    case 'tool':
      return el('li', { class: 'tool' }, at, `tool ${entry.name}(${JSON.stringify(entry.arguments)}) → `, entry.error ? `error: ${entry.error}` : JSON.stringify(entry.result ?? null));
    case 'interrupted':
      return el('li', { class: 'interrupted' }, at, `barge-in on turn ${entry.turn}; the caller heard: "${entry.playedText}"`);
    case 'keypad':
      return el('li', { class: 'keypad' }, at, `keypad: ${entry.digits}`);
    case 'error':
      return el('li', { class: 'error' }, at, `error in ${entry.stage}: ${entry.message}`);
    case 'unavailable':
      return el('li', { class: 'unavailable' }, at, `${entry.stage} failed; the caller heard: "${entry.line}"`);
    case 'charge':
      return el('li', { class: 'charge' }, at, `speech service charge for recognition: ${entry.sttCharge} credits`);
    default:
      return el('li', {}, at, entry.kind);
  }
}

async function show(id, row) {
  for (const other of $('calls').tBodies[0].rows) other.setAttribute('aria-selected', String(other === row));
  try {
    const call = await api(`/api/calls/${encodeURIComponent(id)}`);
    $('call').hidden = false;
    $('call-title').textContent = `Call ${call.id}`;
    const facts = [
      new Date(call.startedAt).toLocaleString(),
      call.durationMs !== undefined ? `${Math.round(call.durationMs / 1000)} s` : undefined,
      call.finished ? `ended: ${call.endedBy}` : 'unfinished (the agent stopped during the call)',
      `agent ${call.agent} (${call.mode})`,
      call.charge !== null && call.charge !== undefined ? `speech service charge ${call.charge} credits` : 'no charge reported',
      `trace ${call.traceId}`,
    ];
    $('call-facts').textContent = facts.filter(Boolean).join(' · ');
    const audio = $('audio');
    audio.hidden = !call.audio;
    if (call.audio) audio.src = `${call.audio}?access_token=${encodeURIComponent(token)}`;
    else audio.removeAttribute('src');
    $('timeline').replaceChildren(...call.entries.map((entry) => entryItem(entry, audio)));
    $('call').scrollIntoView({ block: 'nearest' });
  } catch (error) {
    status(error.message);
  }
}

$('audio').addEventListener('timeupdate', () => {
  const ms = $('audio').currentTime * 1000;
  const turns = [...document.querySelectorAll('#timeline li.turn')];
  const current = turns.filter((item) => Number(item.dataset.at) <= ms).at(-1);
  for (const item of turns) item.classList.toggle('playing', item === current);
});
$('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  void list();
});
$('more').addEventListener('click', () => void list(true));
$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token').value.trim();
  sessionStorage.setItem('shoal-token', token);
  $('token-form').hidden = true;
  void list();
});
if (location.hash.includes('token=')) {
  sessionStorage.setItem('shoal-token', token);
  history.replaceState(null, '', location.pathname);
}
if (token) void list();
else $('token-form').hidden = false;
