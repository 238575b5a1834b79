// The example game's page: one GameSocketsClient, its events rendered into lists.
import { GameSocketsClient } from '../../dist/index.js';

const $ = (id) => document.getElementById(id);
const item = (list, text) => {
  const li = document.createElement('li');
  li.textContent = text;
  $(list).append(li);
};

let client;

function connect(url, token, playerId) {
  client?.close();
  client = new GameSocketsClient(token ? { url, token: () => token } : { url, playerId });
  client.on('state', ({ state, delayMs }) => {
    $('state').textContent = delayMs === undefined ? state : `${state} (next try in ${delayMs} ms)`;
  });
  client.on('resumed', (ack) => {
    $('resumed').textContent = `as ${ack.playerId}${ack.resumed ? ', session resumed' : ''}`;
    $('place').disabled = false;
    $('send').disabled = false;
  });
  client.on('placement', (p) => {
    const where = p.gameSession ? ` at ${p.gameSession.dnsName}:${p.gameSession.port}` : '';
    item('placements', `${p.placementId} ${p.status}${where}`);
  });
  client.on('message', (m) => item('messages', `${m.from}: ${JSON.stringify(m.message)}`));
  client.on('closed', ({ reason }) => item('errors', `stopped: ${reason}`));
  client.connect().catch((e) => item('errors', `${e.code}: ${e.message}`));
}

$('place').addEventListener('click', () => {
  client.requestPlacement({}).catch((e) => item('errors', `${e.code}: ${e.message}`));
});
$('send').addEventListener('click', () => {
  client.sendMessage([$('to').value], { text: 'hi' }).catch((e) => item('errors', `${e.code}: ${e.message}`));
});
$('connect').addEventListener('submit', (event) => {
  event.preventDefault();
  connect($('url').value, $('token').value, $('playerId').value);
});

// ?url=...&token=... (or &playerId=...) connects at once.
const query = new URLSearchParams(location.search);
for (const name of ['url', 'token', 'playerId']) {
  if (query.get(name)) $(name).value = query.get(name);
}
if (query.get('token') || query.get('playerId')) connect($('url').value, $('token').value, $('playerId').value);
