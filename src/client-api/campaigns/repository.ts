import type { Database } from '../../core/db/database.ts';

export type CampaignTables = {
  ad_contacts: {
    id: string;
    account_number: string;
    device_class: string;
    campaign: string;
    media_player_id: string | null;
    created_at: number;
  };
};

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
