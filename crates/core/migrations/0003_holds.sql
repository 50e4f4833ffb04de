-- The journal: every transition of every hold, by show and version. It is
-- the audit log (who did what, when) and the source the holds are rebuilt
-- from after a restart. Rows are only appended. (Change events are not kept:
-- an area's event lists all its holds, and after a restart a reconnecting
-- viewer gets a fresh snapshot instead of a replay.)
CREATE TABLE journal (
    show_id TEXT NOT NULL REFERENCES shows (id),
    version INTEGER NOT NULL,
    at INTEGER NOT NULL,
    hold_id TEXT NOT NULL,
    holder_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('created', 'extended', 'confirmed', 'released', 'expired')),
    -- created: {"seats": ["B7", …], "areas": [["standing", 2], …]}
    places TEXT,
    -- created, extended: the hold's deadline from now on.
    expires_at INTEGER,
    -- extended: how many extensions so far.
    extensions INTEGER,
    -- confirmed: after the deadline under latePolicy honorIfFree.
    late INTEGER,
    PRIMARY KEY (show_id, version)
) STRICT, WITHOUT ROWID;

-- What must happen at each deadline, at least once. An entry names the
-- deadline it was made for: once the hold's deadline moved, it does nothing.
CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY,
    show_id TEXT NOT NULL,
    hold_id TEXT NOT NULL,
    deadline INTEGER NOT NULL,
    done_at INTEGER
) STRICT;
CREATE INDEX outbox_due ON outbox (deadline) WHERE done_at IS NULL;
