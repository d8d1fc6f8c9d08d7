/** The verification page's words, in the two languages of the family's people. */
export const pageText = {
  en: {
    title: 'Sign in a TV',
    intro: 'Type the code your TV shows and sign in with your account to approve it.',
    email: 'E-mail',
    password: 'Password',
    code: 'Code on the TV',
    next: 'Continue',
    confirmTitle: 'Sign this TV in?',
    confirmIntro: 'A device asked to be signed in to your account:',
    warning:
      'Approve only a code shown on a screen in front of you. Nobody from Sintonia will ever ask you for a code: if someone did, refuse it.',
    device: 'The name it gives itself (not checked by us):',
    kind: 'Type',
    asked: 'Asked at',
    from: 'Asked from',
    account: 'Account',
    approve: 'Sign it in',
    deny: 'Refuse',
    approvedTitle: 'Your TV is signed in',
    approvedText: 'It starts on its own within a few seconds. You can close this page.',
    deniedTitle: 'Sign-in refused',
    deniedText: 'The TV was not signed in. Its code no longer works.',
    wrongCredentials: 'The e-mail or password is wrong.',
    wrongCode: 'That code is not valid or has expired. Check the TV and try again.',
    throttled: (seconds: number) => `Too many attempts. Try again in ${seconds} seconds.`,
    expiredStep: 'This page waited too long. Start over.',
    decidedAlready: 'This sign-in was decided already or its code has expired.',
    limit: 'Your account already holds the most devices it may. Remove one first.',
    disabled: 'This TV is disabled in your account.',
    other: 'Something went wrong. Try again.',
    otherLanguage: { href: 'es', label: 'Español' },
  },
  es: {
    title: 'Iniciar sesión en una tele',
    intro: 'Escribe el código que muestra tu tele e inicia sesión con tu cuenta para aprobarlo.',
    email: 'Correo electrónico',
    password: 'Contraseña',
    code: 'Código de la tele',
    next: 'Continuar',
    confirmTitle: '¿Iniciar sesión en esta tele?',
    confirmIntro: 'Un dispositivo ha pedido iniciar sesión en tu cuenta:',
    warning:
      'Aprueba solo un código que veas en una pantalla delante de ti. Nadie de Sintonia te pedirá nunca un código: si alguien te lo ha pedido, recházalo.',
    device: 'El nombre que se da a sí mismo (no lo comprobamos):',
    kind: 'Tipo',
    asked: 'Pedido a las',
    from: 'Pedido desde',
    account: 'Cuenta',
    approve: 'Iniciar sesión',
    deny: 'Rechazar',
    approvedTitle: 'Tu tele ha iniciado sesión',
    approvedText: 'Empezará sola en unos segundos. Puedes cerrar esta página.',
    deniedTitle: 'Inicio de sesión rechazado',
    deniedText: 'La tele no ha iniciado sesión. Su código ya no sirve.',
    wrongCredentials: 'El correo o la contraseña no son correctos.',
    wrongCode: 'Ese código no es válido o ha caducado. Mira la tele y vuelve a intentarlo.',
    throttled: (seconds: number) => `Demasiados intentos. Vuelve a intentarlo en ${seconds} segundos.`,
    expiredStep: 'Esta página ha esperado demasiado. Empieza de nuevo.',
    decidedAlready: 'Este inicio de sesión ya se decidió o su código ha caducado.',
    limit: 'Tu cuenta ya tiene el máximo de dispositivos. Quita uno antes.',
    disabled: 'Esta tele está desactivada en tu cuenta.',
    other: 'Algo ha fallado. Vuelve a intentarlo.',
    otherLanguage: { href: 'en', label: 'English' },
  },
} as const;

export type PageLanguage = keyof typeof pageText;
export type PageWords = (typeof pageText)[PageLanguage];

/** `lang` when given (en, es), else the first of Accept-Language's that the page speaks, else English. */
export function pageLanguage(lang: string | undefined, acceptLanguage: string | undefined): PageLanguage {
  if (lang === 'es' || lang === 'en') return lang;
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='));
      return { primary: tag.toLowerCase().split('-')[0] ?? '', q: q ? Number(q.slice(2)) : 1 };
    })
    .filter((entry) => entry.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { primary } of ranked) if (primary === 'es' || primary === 'en') return primary;
  return 'en';
}
