-- Hold ids are global: a client's retry names a hold without its show. The
-- primary key makes a second show's hold with the same id fail in the very
-- transaction that would create it (no check-then-act between two shows).
-- It is also the index of record of each holder's holds across shows.
CREATE TABLE hold_ids (
    hold_id TEXT PRIMARY KEY NOT NULL,
    show_id TEXT NOT NULL REFERENCES shows (id),
    holder_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    -- The show's version its creation made (its order within the show).
    version INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX hold_ids_by_holder ON hold_ids (holder_id, created_at);
-- Earlier databases could hold one id in two shows: the first one keeps it.
INSERT OR IGNORE INTO hold_ids (hold_id, show_id, holder_id, created_at, version)
    SELECT hold_id, show_id, holder_id, at, version FROM journal WHERE action = 'created'
    ORDER BY at, show_id, version;
