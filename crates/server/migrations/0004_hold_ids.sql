-- Hold ids are global: a client's retry names a hold without its show. The
-- primary key makes a second show's hold with the same id fail in the very
-- transaction that would create it (no check-then-act between two shows).
CREATE TABLE hold_ids (
    hold_id TEXT PRIMARY KEY NOT NULL,
    show_id TEXT NOT NULL REFERENCES shows (id)
) STRICT, WITHOUT ROWID;
-- Earlier databases could hold one id in two shows: the first one keeps it.
INSERT OR IGNORE INTO hold_ids (hold_id, show_id)
    SELECT hold_id, show_id FROM journal WHERE action = 'created' ORDER BY at, show_id, version;
