import type { Database } from '../../core/db/database.ts';
import type { ClientContentTables } from '../tables.ts';

export type CampaignTables = Pick<ClientContentTables, 'ad_contacts'>;

export type ContactRow = CampaignTables['ad_contacts'];

export function createContactRepository(database: Database) {
  const db = database.db.withTables<CampaignTables>();
  return {
    async insert(row: ContactRow): Promise<void> {
      await db.insertInto('ad_contacts').values(row).execute();
    },
    async find(id: string): Promise<ContactRow | undefined> {
      return db.selectFrom('ad_contacts').selectAll().where('id', '=', id).executeTakeFirst();
    },
  };
}

export type ContactRepository = ReturnType<typeof createContactRepository>;
