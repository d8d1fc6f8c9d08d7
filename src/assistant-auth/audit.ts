/** Records an action without personal data: who (a key id, an operator, a service) did what to which id. */
export type Audit = (actor: string, action: string, subject: string) => Promise<void>;
