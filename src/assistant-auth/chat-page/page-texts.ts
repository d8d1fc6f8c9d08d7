/**
 * What the chat page says, in English and Spanish: the page picks by the browser's language. Plain words,
 * no product jargon. The suggested questions are sent as the person's message when pressed, so each one
 * is something the assistant answers in that language.
 */
export const pageTexts = {
  en: {
    title: 'Sintonia assistant',
    subtitle: 'Ask about what’s on TV, your recordings and your devices.',
    signInIntro: 'Sign in with your Sintonia account so the assistant can look after your devices.',
    email: 'E-mail',
    password: 'Password',
    signIn: 'Sign in',
    connecting: 'Connecting…',
    signedIn: 'Signed in as {user}. The assistant can now see and change your account.',
    greeting:
      'Hello! I’m the Sintonia assistant. I can tell you what’s on, help with recordings and, once you sign in, look after your devices. Try one of these:',
    greetingSignedIn:
      'Hello! You’re signed in. I can list your devices, sign them out, tell you where you left off and how many more devices you can add. Try one of these:',
    suggestions: ['What’s on TV tonight?', 'How do I record a series?', 'What can you do?'],
    suggestionsSignedIn: [
      'What devices do I have?',
      'What was I watching?',
      'How many more devices can I add?',
    ],
    unavailable: 'The chat is not available right now ({status}). Please try again later.',
    retryIn: 'Try again in {seconds} seconds.',
    startFailed: 'The chat could not start. Please reload the page.',
    signInFailed: 'Signing in did not work. Please try again.',
    CHAT_SIGN_IN_FAILED: 'That e-mail or password is not right.',
    CHAT_DEVICE_REFUSED:
      'This page cannot sign in to your account: it may be switched off there, or your account already has the most devices it can hold.',
    RATE_LIMITED: 'Too many attempts.',
  },
  es: {
    title: 'Asistente de Sintonia',
    subtitle: 'Pregunta qué echan en la tele, por tus grabaciones y por tus dispositivos.',
    signInIntro: 'Inicia sesión con tu cuenta de Sintonia para que el asistente cuide de tus dispositivos.',
    email: 'Correo electrónico',
    password: 'Contraseña',
    signIn: 'Iniciar sesión',
    connecting: 'Conectando…',
    signedIn: 'Has iniciado sesión como {user}. El asistente ya puede ver y cambiar tu cuenta.',
    greeting:
      '¡Hola! Soy el asistente de Sintonia. Puedo decirte qué echan, ayudarte con las grabaciones y, cuando inicies sesión, cuidar de tus dispositivos. Prueba con una de estas:',
    greetingSignedIn:
      '¡Hola! Has iniciado sesión. Puedo enumerar tus dispositivos, cerrar su sesión, decirte por dónde ibas y cuántos dispositivos más puedes añadir. Prueba con una de estas:',
    suggestions: ['¿Qué echan esta noche?', '¿Cómo grabo una serie?', '¿Qué puedes hacer?'],
    suggestionsSignedIn: [
      '¿Qué dispositivos tengo?',
      '¿Qué estaba viendo?',
      '¿Cuántos dispositivos más puedo añadir?',
    ],
    unavailable: 'El chat no está disponible ahora mismo ({status}). Inténtalo de nuevo más tarde.',
    retryIn: 'Vuelve a intentarlo dentro de {seconds} segundos.',
    startFailed: 'El chat no ha podido empezar. Vuelve a cargar la página.',
    signInFailed: 'No se ha podido iniciar sesión. Inténtalo de nuevo.',
    CHAT_SIGN_IN_FAILED: 'El correo o la contraseña no son correctos.',
    CHAT_DEVICE_REFUSED:
      'Esta página no puede iniciar sesión en tu cuenta: puede que esté desactivada allí, o que tu cuenta ya tenga el máximo de dispositivos.',
    RATE_LIMITED: 'Demasiados intentos.',
  },
} as const;

export type PageLanguage = keyof typeof pageTexts;
