-- Holds and what they take. A hold's places are rows of hold_seats and
-- hold_areas; seats.hold_id / seats.hold_expires_at mirror the latest hold of
-- each seat so that a conditional write can check a seat in one row.
CREATE TABLE holds (
    id TEXT PRIMARY KEY NOT NULL,
    show_id TEXT NOT NULL REFERENCES shows (id),
    holder_id TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('HELD', 'CONFIRMED', 'RELEASED', 'EXPIRED')),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    extensions INTEGER NOT NULL DEFAULT 0 CHECK (extensions >= 0),
    late INTEGER NOT NULL DEFAULT 0 CHECK (late IN (0, 1))
) STRICT;
CREATE INDEX holds_by_show ON holds (show_id);
CREATE INDEX holds_by_holder ON holds (holder_id, created_at);

CREATE TABLE hold_seats (
    hold_id TEXT NOT NULL REFERENCES holds (id),
    position INTEGER NOT NULL,
    seat_id TEXT NOT NULL,
    PRIMARY KEY (hold_id, position)
) STRICT, WITHOUT ROWID;

-- expires_at and active mirror the hold's, so that an area's unexpired
-- holds are one index range, not every hold the area ever had.
CREATE TABLE hold_areas (
    hold_id TEXT NOT NULL REFERENCES holds (id),
    show_id TEXT NOT NULL,
    area_id TEXT NOT NULL,
    quantity INTEGER NOT NULL CHECK (quantity >= 1),
    expires_at INTEGER NOT NULL,
    active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    PRIMARY KEY (hold_id, area_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX hold_areas_held ON hold_areas (show_id, area_id, expires_at) WHERE active = 1;


-- Every transition of every hold: who did what, when.
CREATE TABLE audit (
    seq INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    show_id TEXT NOT NULL,
    hold_id TEXT NOT NULL,
    holder_id TEXT NOT NULL,
    action TEXT NOT NULL,
    detail TEXT NOT NULL
) STRICT;

-- What must happen at each deadline, at least once. An entry names the
-- deadline it was made for: once the stored deadline moved, it does nothing.
CREATE TABLE outbox (
    idempotency_key TEXT PRIMARY KEY NOT NULL,
    show_id TEXT NOT NULL,
    hold_id TEXT NOT NULL,
    deadline INTEGER NOT NULL,
    done_at INTEGER
) STRICT, WITHOUT ROWID;
CREATE INDEX outbox_due ON outbox (deadline) WHERE done_at IS NULL;

-- The public change events, by show and version, for replay after restart.
CREATE TABLE change_log (
    show_id TEXT NOT NULL,
    version INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (show_id, version)
) STRICT, WITHOUT ROWID;
