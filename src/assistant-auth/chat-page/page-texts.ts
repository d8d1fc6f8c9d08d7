/**
 * What the chat page says, in English and Spanish: the page picks by the browser's language. Plain words,
 * no product jargon. The suggested questions are sent as the person's message when pressed, so each one
 * is something the assistant answers in that language.
 */
export const pageTexts = {
  en: {
    title: 'Sintonia assistant',
    subtitle:
      'Ask what’s on TV, how to record, and, signed in, about your devices and what’s playing at home.',
    signInIntro: 'Sign in with your Sintonia account so the assistant can look after your devices.',
    email: 'E-mail',
    password: 'Password',
    signIn: 'Sign in',
    connecting: 'Connecting…',
    signedIn: 'Signed in as {user}. The assistant can now see and change your account.',
    signOut: 'Sign out',
    signOutFailed: 'Signing out did not work. Please try again.',
    greeting:
      'Hello! I’m the Sintonia assistant. I can tell you how to see what’s on and how to record and, once you sign in, look after your devices and what’s playing at home. Try one of these:',
    greetingSignedIn:
      'Hello! You’re signed in. I can tell you what’s playing at home, stop or pause it, or move it to another TV (after your yes), list your devices, sign them out and tell you where you left off. Try one of these:',
    suggestions: ['What’s on TV tonight?', 'How do I record a series?', 'What can you do?'],
    suggestionsSignedIn: ['What’s playing at home?', 'What devices do I have?', 'What was I watching?'],
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
    subtitle:
      'Pregunta qué echan en la tele, cómo grabar y, con tu sesión iniciada, por tus dispositivos y qué se ve en casa.',
    signInIntro: 'Inicia sesión con tu cuenta de Sintonia para que el asistente cuide de tus dispositivos.',
    email: 'Correo electrónico',
    password: 'Contraseña',
    signIn: 'Iniciar sesión',
    connecting: 'Conectando…',
    signedIn: 'Has iniciado sesión como {user}. El asistente ya puede ver y cambiar tu cuenta.',
    signOut: 'Cerrar sesión',
    signOutFailed: 'No se ha podido cerrar la sesión. Inténtalo de nuevo.',
    greeting:
      '¡Hola! Soy el asistente de Sintonia. Puedo decirte cómo ver qué echan y cómo grabar y, cuando inicies sesión, cuidar de tus dispositivos y de lo que se ve en casa. Prueba con una de estas:',
    greetingSignedIn:
      '¡Hola! Has iniciado sesión. Puedo decirte qué se está viendo en casa, pararlo, pausarlo o pasarlo a otra tele (después de tu sí), enumerar tus dispositivos, cerrar su sesión y decirte por dónde ibas. Prueba con una de estas:',
    suggestions: ['¿Qué echan esta noche?', '¿Cómo grabo una serie?', '¿Qué puedes hacer?'],
    suggestionsSignedIn: ['¿Qué se está viendo en casa?', '¿Qué dispositivos tengo?', '¿Qué estaba viendo?'],
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
