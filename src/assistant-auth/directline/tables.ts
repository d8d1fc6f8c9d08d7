/** Tables of the embedded Direct Line channel. Times are epoch milliseconds. */
// A type alias, not an interface: Kysely's withTables needs the index signature aliases have.
export type DirectLineTables = {
  directline_conversations: {
    id: string;
    /** The Direct Line user (`dl_…`) the conversation's tokens are bound to. */
    user_id: string;
    /** Sequence number of the newest activity: the conversation's watermark. */
    last_seq: number;
    created_at: number;
    last_activity_at: number;
  };
  directline_activities: {
    conversation_id: string;
    seq: number;
    /** `<conversationId>|<seq, 7 digits>`, as Direct Line numbers activities. */
    id: string;
    /** The whole activity as JSON. */
    activity: string;
    created_at: number;
  };
};
