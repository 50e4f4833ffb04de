-- Blocked seats (API.md "Box office (v2)"): blocking and unblocking are
-- journal entries like a hold's transitions, in the show's one version
-- order, so they replay, catch up and export with everything else. They
-- name no hold, so hold_id becomes optional; their seats (and a block's
-- reason) are in places: {"seats": [...], "reason": "..."}. SQLite cannot
-- change a CHECK or a NOT NULL in place: the table is rebuilt, rows kept.
CREATE TABLE journal_v5 (
    show_id TEXT NOT NULL REFERENCES shows (id),
    version INTEGER NOT NULL,
    at INTEGER NOT NULL,
    hold_id TEXT,
    holder_id TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('created', 'extended', 'confirmed', 'released', 'expired', 'blocked', 'unblocked')),
    places TEXT,
    expires_at INTEGER,
    extensions INTEGER,
    late INTEGER,
    PRIMARY KEY (show_id, version),
    CHECK ((hold_id IS NULL) = (action IN ('blocked', 'unblocked')))
) STRICT, WITHOUT ROWID;
INSERT INTO journal_v5 SELECT show_id, version, at, hold_id, holder_id, action, places, expires_at, extensions, late FROM journal;
DROP TABLE journal;
ALTER TABLE journal_v5 RENAME TO journal;
