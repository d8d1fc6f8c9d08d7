import { accountFind } from './accounts/repository.ts';
import { bookmarkStatements } from './bookmarks/statements.ts';
import { deviceStatements } from './devices/statements.ts';
import { sessionState } from './sessions/repository.ts';

/** The client API's statements compiled per dialect (core/db/statement.ts): the snapshot in queries/ lists them. */
export const clientApiStatements = [accountFind, sessionState, ...deviceStatements, ...bookmarkStatements];
