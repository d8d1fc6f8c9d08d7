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
    /** User messages: 'pending' until the agent's answer (or error) is stored, then 'done'; else null. */
    answer_state: string | null;
    /** While pending: until when the process calling the agent holds it. */
    claimed_until: number | null;
    /** While pending: the channel instance (process) that holds it. */
    claimed_by: string | null;
  };
};
