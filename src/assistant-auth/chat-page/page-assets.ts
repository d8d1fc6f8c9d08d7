import { pageTexts } from './page-texts.ts';

/**
 * The page's own script, served as a file (the page runs no inline script). It speaks the browser's
 * language (Spanish or English: every `data-text` element, then its messages), asks the service for a
 * conversation token (anonymous, or after the person signs in, bound to them), then hands the stock Web
 * Chat that token, the Direct Line base the service named, the transport (`?transport=polling` for HTTP
 * polling instead of the websocket) and the page's style nonce, which Web Chat puts on the style
 * elements it creates so the page's CSP allows them. Once connected, Web Chat shows a greeting with
 * suggested first questions (buttons that send them), for a signed-out or a signed-in person. Signed in,
 * the page says who is and offers a sign-out, which ends that sign-in and starts anonymous again.
 */
export const pageScript = `'use strict';
(function () {
  var TEXTS = ${JSON.stringify(pageTexts)};
  var script = document.currentScript;
  var nonce = (script && script.nonce) || undefined;
  var root = document.getElementById('webchat');
  var status = document.getElementById('chat-status');
  var polling = new URLSearchParams(window.location.search).get('transport') === 'polling';
  var language = /^es\\b/i.test(navigator.language || '') ? 'es' : 'en';
  var texts = TEXTS[language];

  function fill(template, values) {
    return template.replace(/\\{(\\w+)\\}/g, function (_, name) { return values[name]; });
  }

  document.documentElement.lang = language;
  document.title = texts.title;
  Array.prototype.forEach.call(document.querySelectorAll('[data-text]'), function (element) {
    element.textContent = texts[element.getAttribute('data-text')];
  });

  function show(message) {
    status.textContent = message;
    status.hidden = false;
  }

  /** The refusal in the person's language: by its type when the page knows it, else the service's words. */
  function problem(response) {
    return response.json().then(
      function (body) {
        var retry = response.headers.get('retry-after');
        var type = body && body.errors && body.errors[0] && body.errors[0].type;
        var message = (type && texts[type]) || (language === 'en' && body && body.message) || fill(texts.unavailable, { status: response.status });
        return new Error(retry ? message + ' ' + fill(texts.retryIn, { seconds: retry }) : message);
      },
      function () {
        return new Error(fill(texts.unavailable, { status: response.status }));
      },
    );
  }

  /** The greeting, shown by Web Chat as the assistant's first message, with its questions as buttons. */
  function greeting(signedIn) {
    var questions = signedIn ? texts.suggestionsSignedIn : texts.suggestions;
    return {
      type: 'message',
      id: 'greeting-' + Date.now(),
      timestamp: new Date().toISOString(),
      from: { id: 'sintonia-assistant', name: 'Sintonia', role: 'bot' },
      text: signedIn ? texts.greetingSignedIn : texts.greeting,
      textFormat: 'plain',
      suggestedActions: {
        actions: questions.map(function (question) { return { type: 'imBack', title: question, value: question }; }),
      },
    };
  }

  function greetingStore(signedIn) {
    return window.WebChat.createStore({}, function (store) {
      return function (next) {
        return function (action) {
          var result = next(action);
          if (action.type === 'DIRECT_LINE/CONNECT_FULFILLED') {
            // Queued as a received activity: Web Chat then also shows its suggested actions.
            store.dispatch({ type: 'DIRECT_LINE/QUEUE_INCOMING_ACTIVITY', payload: { activity: greeting(signedIn) } });
          }
          return result;
        };
      };
    });
  }

  var current;

  /** Starts Web Chat on the conversation a token request answers; a running one is ended first. */
  function start(request, signedIn) {
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
            store: greetingStore(signedIn),
            nonce: nonce,
            locale: language === 'es' ? 'es-ES' : 'en-US',
            styleOptions: {
              botAvatarInitials: 'S',
              userAvatarInitials: language === 'es' ? 'Tú' : 'You',
              accent: '#1d4ed8',
              sendBoxButtonColor: '#1d4ed8',
              suggestedActionLayout: 'flow',
              suggestedActionHeight: 'auto',
            },
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

  start(tokenRequest(root.getAttribute('data-token-url')), false).catch(function (error) {
    show(error && error.message ? error.message : texts.startFailed);
  });

  // Signing in starts a new conversation bound to the person, whose account the assistant may then act on.
  var form = document.getElementById('sign-in');
  var signedIn = document.getElementById('signed-in');
  var signedInAs = document.getElementById('signed-in-as');
  var signOut = document.getElementById('sign-out');
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var fields = form.elements;
    var username = fields.namedItem('username').value;
    start(tokenRequest(form.getAttribute('data-sign-in-url'), { username: username, password: fields.namedItem('password').value }), true)
      .then(function () {
        form.reset();
        form.hidden = true;
        signedInAs.textContent = fill(texts.signedIn, { user: username });
        signedIn.hidden = false;
        // The form the focus was in is gone: it moves to the way out, beside who is signed in.
        signOut.focus();
      })
      .catch(function (error) {
        show(error && error.message ? error.message : texts.signInFailed);
      });
  });

  // Signing out ends this sign-in (its session, not the person's other browsers'), proved by the current
  // conversation's token (Direct Line keeps the renewed one), then starts a new anonymous conversation.
  var signingOut = false;
  signOut.addEventListener('click', function () {
    if (signingOut || !current) return;
    signingOut = true;
    fetch(signOut.getAttribute('data-sign-out-url'), {
      method: 'POST',
      headers: { accept: 'application/json', authorization: 'Bearer ' + current.token },
      credentials: 'same-origin',
      cache: 'no-store',
    })
      .then(function (response) {
        if (!response.ok) throw new Error(texts.signOutFailed);
        signedIn.hidden = true;
        signedInAs.textContent = '';
        form.hidden = false;
        form.elements.namedItem('username').focus();
        return start(tokenRequest(root.getAttribute('data-token-url')), false);
      })
      .catch(function (error) {
        show(error && error.message ? error.message : texts.signOutFailed);
      })
      .then(function () {
        signingOut = false;
      });
  });
})();
`;

/**
 * The page's layout: a header, the sign-in form and Web Chat filling the rest of the window, from a
 * 320 px phone to a desktop, never wider than the window (long words in messages break).
 */
export const pageStyle = `*, *::before, *::after { box-sizing: border-box; }
html, body { height: 100%; margin: 0; }
body {
  display: flex;
  flex-direction: column;
  min-height: 100dvh;
  height: 100dvh;
  overflow-x: hidden;
  background: #eef1f6;
  color: #1f2937;
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
}
header { padding: 12px 16px; background: #1e3a8a; color: #fff; }
header h1 { margin: 0; font-size: 1.15rem; font-weight: 600; }
header p { margin: 4px 0 0; font-size: 0.9rem; }
main {
  flex: 1;
  min-height: 0;
  width: 100%;
  max-width: 880px;
  margin: 0 auto;
  background: #fff;
  box-shadow: 0 0 12px rgba(15, 23, 42, 0.12);
}
#chat-status { margin: 0; padding: 10px 16px; background: #fef3c7; color: #78350f; overflow-wrap: anywhere; }
#sign-in, #signed-in { margin: 0; padding: 8px 16px; background: #e0e7ff; font-size: 0.9rem; overflow-wrap: anywhere; }
#sign-in p { margin: 0 0 6px; }
#sign-in .fields { max-width: 832px; display: flex; flex-wrap: wrap; gap: 8px; align-items: flex-end; }
#sign-in label { display: flex; flex-direction: column; gap: 2px; flex: 1 1 12rem; min-width: 0; }
#sign-in input { width: 100%; min-width: 0; padding: 6px 8px; font: inherit; border: 1px solid #64748b; border-radius: 4px; }
#signed-in { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
#signed-in p { margin: 0; flex: 1 1 12rem; min-width: 0; }
#sign-in button, #sign-out {
  flex: 0 0 auto;
  padding: 7px 16px;
  font: inherit;
  color: #fff;
  background: #1d4ed8;
  border: 0;
  border-radius: 4px;
  cursor: pointer;
}
#sign-in input:focus-visible, #sign-in button:focus-visible, #sign-out:focus-visible { outline: 3px solid #f59e0b; outline-offset: 1px; }
#sign-in[hidden], #signed-in[hidden], #chat-status[hidden] { display: none; }
/* Web Chat's bubbles: a long word (a link, an id) wraps instead of widening the page. */
#webchat .webchat__bubble__content, #webchat .webchat__suggested-action { overflow-wrap: anywhere; word-break: break-word; min-width: 0; }
#webchat .webchat__bubble { max-width: 100%; }
@media (min-width: 720px) {
  header, #sign-in, #signed-in, #chat-status { padding-left: 24px; padding-right: 24px; }
}
`;
