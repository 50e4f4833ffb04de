-- The waiting room's log (API.md "Waiting room (v3)"): its own sequence per
-- show, beside the journal; the queue's state is a replay of it. The key
-- makes appends conditional: two processes cannot both write seq n.
CREATE TABLE queue_entries (
    show_id TEXT NOT NULL REFERENCES shows (id),
    seq BIGINT NOT NULL,
    at BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('joined', 'drawn', 'set')),
    holder TEXT,
    data TEXT NOT NULL,
    PRIMARY KEY (show_id, seq)
);
