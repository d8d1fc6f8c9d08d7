/**
 * The page's own script, served as a file (the page runs no inline script). It asks the service for a
 * conversation token (anonymous, or after the person signs in, bound to them), then hands the stock Web
 * Chat that token, the Direct Line base the service named, the transport (`?transport=polling` for HTTP
 * polling instead of the websocket) and the page's style nonce, which Web Chat puts on the style
 * elements it creates so the page's CSP allows them.
 */
export const pageScript = `'use strict';
(function () {
  var script = document.currentScript;
  var nonce = (script && script.nonce) || undefined;
  var root = document.getElementById('webchat');
  var status = document.getElementById('chat-status');
  var polling = new URLSearchParams(window.location.search).get('transport') === 'polling';

  function show(message) {
    status.textContent = message;
    status.hidden = false;
  }

  function problem(response) {
    return response.json().then(
      function (body) {
        var retry = response.headers.get('retry-after');
        var message = (body && body.message) || 'The chat is not available (' + response.status + ').';
        return new Error(retry ? message + ' Try again in ' + retry + ' s.' : message);
      },
      function () {
        return new Error('The chat is not available (' + response.status + ').');
      },
    );
  }

  var current;

  /** Starts Web Chat on the conversation a token request answers; a running one is ended first. */
  function start(request) {
    return request
      .then(function (response) {
        return response.ok ? response.json() : problem(response).then(function (error) { throw error; });
      })
      .then(function (answer) {
        if (current) current.end();
        current = window.WebChat.createDirectLine({
          token: answer.token,
          domain: answer.domain,
          webSocket: !polling,
        });
        window.WebChat.renderWebChat(
          {
            directLine: current,
            nonce: nonce,
            locale: navigator.language || 'en-US',
            styleOptions: { botAvatarInitials: 'S', userAvatarInitials: 'You', sendBoxButtonColor: '#1d4ed8' },
          },
          root,
        );
        status.hidden = true;
        root.setAttribute('data-transport', polling ? 'polling' : 'websocket');
      });
  }

  function tokenRequest(url, body) {
    return fetch(url, {
      method: 'POST',
      headers: body ? { accept: 'application/json', 'content-type': 'application/json' } : { accept: 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
      credentials: 'same-origin',
      cache: 'no-store',
    });
  }

  start(tokenRequest(root.getAttribute('data-token-url'))).catch(function (error) {
    show(error && error.message ? error.message : 'The chat could not start.');
  });

  // Signing in starts a new conversation bound to the person, whose account the assistant may then act on.
  var form = document.getElementById('sign-in');
  var signedIn = document.getElementById('signed-in');
  if (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var fields = form.elements;
      var username = fields.namedItem('username').value;
      start(tokenRequest(form.getAttribute('data-sign-in-url'), { username: username, password: fields.namedItem('password').value }))
        .then(function () {
          form.hidden = true;
          signedIn.textContent = 'Signed in as ' + username + '. Ask: “what devices do I have?”';
          signedIn.hidden = false;
        })
        .catch(function (error) {
          show(error && error.message ? error.message : 'Signing in failed.');
        });
    });
  }
})();
`;

/** The page's layout: a header and Web Chat filling the rest of the window. */
export const pageStyle = `html, body { height: 100%; margin: 0; }
body {
  display: flex;
  flex-direction: column;
  background: #eef1f6;
  color: #1f2937;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
}
header { padding: 14px 24px; background: #1e3a8a; color: #fff; }
header h1 { margin: 0; font-size: 1.15rem; font-weight: 600; }
header p { margin: 4px 0 0; font-size: 0.85rem; opacity: 0.85; }
main {
  flex: 1;
  min-height: 0;
  width: 100%;
  max-width: 880px;
  margin: 0 auto;
  background: #fff;
  box-shadow: 0 0 12px rgba(15, 23, 42, 0.12);
}
#chat-status { margin: 0; padding: 10px 24px; background: #fef3c7; color: #78350f; }
#sign-in, #signed-in { display: flex; gap: 8px; align-items: center; margin: 0; padding: 8px 24px; background: #e0e7ff; font-size: 0.9rem; }
#sign-in input { padding: 4px 6px; }
#sign-in[hidden], #signed-in[hidden] { display: none; }
`;
