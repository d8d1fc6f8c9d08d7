import { tvCatalogue, tvTexts } from './tv-texts.ts';

/**
 * The TV page's script, served as a file (the page runs no inline script). It behaves as a TV of the
 * household would: it signs in by code (the device authorization grant, RFC 8628), keeping its device id and
 * refresh token in the tab's storage across reloads (each tab is a TV of its own); holds its command
 * stream (an EventSource on a stream ticket's URL, resuming after the last command it saw); "plays" a title with a moving position,
 * reporting it to the playback operation every REPORT_SECONDS; and obeys stop, pause, resume and play,
 * acknowledging each command and saying on screen what it did. Every call answers JSON; a 401 refreshes
 * the tokens once, and a refused refresh (the TV was signed out) goes back to the sign-in code.
 */
export const tvScript = String.raw`'use strict';
(function () {
  var TEXTS = ${JSON.stringify(tvTexts)};
  var CATALOGUE = ${JSON.stringify(tvCatalogue)};
  var REPORT_SECONDS = 10;
  // The name the TV gives itself on its first sign-in: ?name= (e.g. ?name=Bedroom%20TV), else Browser TV.
  var NAME = (new URLSearchParams(window.location.search).get('name') || 'Browser TV').slice(0, 64);
  var api = document.body.getAttribute('data-api');
  // The TV signs in as the first client id of the TV sign-in: its device class.
  var DEVICE_CLASS = document.body.getAttribute('data-client-id');
  var texts = TEXTS[/^es\b/i.test(navigator.language || '') ? 'es' : 'en'];
  // Per tab: each tab of the page is a TV of its own, kept across reloads of that tab.
  var store = window.sessionStorage;
  var $ = function (id) { return document.getElementById(id); };
  var state = { tokens: null, user: null, deviceId: null, stream: null, playing: null, lastEventId: '' };

  function fill(template, values) {
    return template.replace(/\{(\w+)\}/g, function (_, name) { return values[name]; });
  }
  document.documentElement.lang = texts === TEXTS.es ? 'es' : 'en';
  document.title = texts.title;
  Array.prototype.forEach.call(document.querySelectorAll('[data-text]'), function (element) {
    element.textContent = texts[element.getAttribute('data-text')];
  });
  function say(message) { $('tv-status').textContent = message; }
  function show(view) {
    $('tv-sign-in').hidden = view !== 'sign-in';
    $('tv-home').hidden = view !== 'home';
  }
  function later(seconds) { return new Promise(function (resolve) { setTimeout(resolve, seconds * 1000); }); }

  function deviceId() {
    var id = store.getItem('sintonia.tv.deviceId');
    if (!id) {
      var bytes = new Uint8Array(6);
      crypto.getRandomValues(bytes);
      id = 'tv-' + Array.prototype.map.call(bytes, function (b) { return ('0' + b.toString(16)).slice(-2); }).join('');
      store.setItem('sintonia.tv.deviceId', id);
    }
    return id;
  }

  function form(path, fields) {
    return fetch(api + path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields).toString(),
    }).then(function (response) {
      return response.json().then(function (body) { return { status: response.status, body: body }; });
    });
  }

  /** The device authorization grant: a code on screen until a person approves it on their phone. */
  function signIn() {
    show('sign-in');
    var device = deviceId();
    return form('/oauth/device_authorization', { client_id: DEVICE_CLASS, device_id: device, device_name: NAME })
      .then(function (answer) {
        if (answer.status !== 200) {
          var wait = answer.status === 429 || answer.status === 503 ? 30 : 10;
          say(fill(texts.busy, { seconds: wait }));
          return later(wait).then(signIn);
        }
        var codes = answer.body;
        $('tv-steps').textContent = fill(texts.signInSteps, { uri: codes.verification_uri });
        $('tv-code').textContent = codes.user_code;
        $('tv-link').textContent = codes.verification_uri_complete;
        say(texts.waiting);
        return poll(codes, codes.interval);
      })
      .catch(function () {
        say(fill(texts.offline, { seconds: 10 }));
        return later(10).then(signIn);
      });
  }

  function poll(codes, interval) {
    return later(interval).then(function () {
      return form('/oauth/token', {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: codes.device_code,
        client_id: DEVICE_CLASS,
      });
    }).then(function (answer) {
      if (answer.status === 200) {
        store.setItem('sintonia.tv.deviceId', answer.body.device_id);
        store.setItem('sintonia.tv.refreshToken', answer.body.refresh_token);
        return start();
      }
      var error = answer.body && answer.body.error;
      if (error === 'authorization_pending') return poll(codes, interval);
      if (error === 'slow_down') return poll(codes, interval + 5);
      say(error === 'access_denied' ? texts.refused : texts.expired);
      return later(3).then(signIn);
    });
  }

  /** Fresh tokens and the user from the stored refresh token (it rotates); false when it is refused. */
  function refresh() {
    var refreshToken = store.getItem('sintonia.tv.refreshToken');
    if (!refreshToken) return Promise.resolve(false);
    var path = '/auth/devices/' + DEVICE_CLASS + '/' + encodeURIComponent(deviceId()) + '/userInfo';
    return fetch(api + path, { headers: { authorization: 'Bearer ' + refreshToken, accept: 'application/json' } })
      .then(function (response) {
        if (response.status === 401 || response.status === 403 || response.status === 404) return false;
        if (response.status !== 200) throw new Error('refresh ' + response.status);
        return response.json().then(function (body) {
          state.tokens = body.tokens;
          state.user = body.user;
          store.setItem('sintonia.tv.refreshToken', body.tokens.refreshToken);
          return true;
        });
      });
  }

  /** A call as this TV; one refresh on a 401. Answers { status, body }. */
  function call(method, path, body, again) {
    var headers = { authorization: 'Bearer ' + state.tokens.accessToken, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return fetch(api + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) })
      .then(function (response) {
        if (response.status === 401 && !again) {
          return refresh().then(function (ok) {
            if (!ok) { signedOut(); throw new Error('signed out'); }
            return call(method, path, body, true);
          });
        }
        if (response.status === 204) return { status: 204, body: null };
        return response.json().then(function (answer) { return { status: response.status, body: answer }; });
      });
  }
  function mine() { return '/' + DEVICE_CLASS + '/' + encodeURIComponent(deviceId()); }
  function playbackPath() { return mine() + '/users/' + encodeURIComponent(state.user.userHash) + '/playback'; }

  function start() {
    return refresh().then(function (ok) {
      if (!ok) { store.removeItem('sintonia.tv.refreshToken'); return signIn(); }
      show('home');
      $('tv-user').textContent = fill(texts.signedIn, { user: state.user.email || state.user.accountNumber });
      render();
      listen();
    }, function () {
      say(fill(texts.offline, { seconds: 10 }));
      return later(10).then(start);
    });
  }

  function signedOut() {
    if (state.stream) state.stream.close();
    state.stream = null;
    state.playing = null;
    store.removeItem('sintonia.tv.refreshToken');
    say(texts.ended);
    later(2).then(signIn);
  }

  /** The command stream: a ticket for the URL (EventSource sends no headers), resumed after the last id seen. */
  function listen() {
    say(texts.connecting);
    call('POST', mine() + '/commands/ticket').then(function (answer) {
      if (answer.status !== 200) throw new Error('ticket ' + answer.status);
      // The page's own origin and base, as the page reached them (through a proxy too), with the ticket.
      var url = api + mine() + '/commands?t=' + encodeURIComponent(answer.body.ticket);
      if (state.lastEventId) url += '&lastEventId=' + encodeURIComponent(state.lastEventId);
      var stream = new EventSource(url);
      state.stream = stream;
      stream.onopen = function () { say(texts.connected); };
      stream.addEventListener('command', function (event) {
        state.lastEventId = event.lastEventId || state.lastEventId;
        obey(JSON.parse(event.data));
      });
      // The ticket in the URL is short-lived: a lost stream is opened again with a new one.
      stream.onerror = function () {
        stream.close();
        if (state.stream !== stream) return;
        state.stream = null;
        say(texts.connecting);
        later(3).then(function () { if (state.tokens) listen(); });
      };
    }).catch(function () {
      if (state.tokens) later(5).then(listen);
    });
  }

  function obey(command) {
    var words = { stop: texts.commandStop, pause: texts.commandPause, resume: texts.commandResume, play: texts.commandPlay };
    if (command.type === 'stop') stop();
    else if (command.type === 'pause') pause(true);
    else if (command.type === 'resume') pause(false);
    else if (command.type === 'play') play(command.contentId, command.offset || 0);
    if (words[command.type]) say(words[command.type]);
    call('POST', mine() + '/commands/' + encodeURIComponent(command.id) + '/ack').catch(function () {});
  }

  function titleOf(contentId) {
    for (var i = 0; i < CATALOGUE.length; i++) if (CATALOGUE[i].contentId === contentId) return CATALOGUE[i].title;
    return '#' + contentId;
  }

  /** Starts or goes on with the stream of what plays; a refusal by the account's limit stops it here. */
  function report() {
    var playing = state.playing;
    if (!playing) return Promise.resolve();
    var path = playbackPath() + '/' + playing.contentId + '?offset=' + Math.floor(playing.offset);
    return call('PUT', path).then(function (answer) {
      if (answer.status === 409 && state.playing === playing) {
        state.playing = null;
        render();
        say(texts.limit);
      }
    }).catch(function () {});
  }

  function play(contentId, offset) {
    state.playing = { contentId: Number(contentId), offset: Number(offset) || 0, paused: false, sinceReport: 0 };
    render();
    report();
  }
  function pause(paused) {
    if (!state.playing) return;
    state.playing.paused = paused;
    render();
  }
  function stop() {
    if (!state.playing) return;
    state.playing = null;
    render();
    call('DELETE', playbackPath()).catch(function () {});
  }

  function clock(seconds) {
    var s = Math.floor(seconds);
    var pad = function (n) { return (n < 10 ? '0' : '') + n; };
    return pad(Math.floor(s / 3600)) + ':' + pad(Math.floor(s / 60) % 60) + ':' + pad(s % 60);
  }
  function render() {
    var playing = state.playing;
    $('tv-now').textContent = playing ? (playing.paused ? texts.paused : texts.playing) + ': ' + titleOf(playing.contentId) : texts.stopped;
    $('tv-position').textContent = playing ? clock(playing.offset) : '';
    $('tv-pause').hidden = !playing;
    $('tv-pause').textContent = playing && playing.paused ? texts.resume : texts.pause;
    $('tv-stop').hidden = !playing;
  }

  setInterval(function () {
    var playing = state.playing;
    if (!playing) return;
    if (!playing.paused) playing.offset += 1;
    playing.sinceReport += 1;
    $('tv-position').textContent = clock(playing.offset);
    if (playing.sinceReport >= REPORT_SECONDS) {
      playing.sinceReport = 0;
      report();
    }
  }, 1000);

  CATALOGUE.forEach(function (item) {
    var button = document.createElement('button');
    button.type = 'button';
    button.textContent = item.title;
    button.setAttribute('data-content-id', String(item.contentId));
    button.addEventListener('click', function () { play(item.contentId, 0); });
    $('tv-catalogue').appendChild(button);
  });
  $('tv-pause').addEventListener('click', function () { pause(!state.playing.paused); });
  $('tv-stop').addEventListener('click', stop);
  $('tv-sign-out').addEventListener('click', function () {
    var path = '/accounts/' + encodeURIComponent(state.user.accountNumber) + '/devices/' + encodeURIComponent(deviceId()) + '/sessions?qspVersion=All';
    stop();
    call('DELETE', path).then(signedOut, signedOut);
  });

  if (store.getItem('sintonia.tv.refreshToken')) start(); else signIn();
})();
`;
